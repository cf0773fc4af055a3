"""Crime Hotel agents: ``expected-points`` (expected points from the exact hidden-room marginals).
"""

#: this game's agents by name: ``"module:class"``, imported when first built
AGENTS: dict[str, str] = {
    "expected-points": "agents.crime_hotel.expected_points:ExpectedPointsAgent",
}

__all__ = ["AGENTS"]
