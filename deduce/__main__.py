"""``python -m deduce`` is the ``deduce`` command."""

import sys

from deduce.cli import main

sys.exit(main())
