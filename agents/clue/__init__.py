"""Clue agents, weakest to strongest: ``notebook`` (a careful human's checklist), ``deductive``
(full deduction, plain questions), ``infogain`` (the most informative question), ``racer`` (the
question that most raises the chance of a right accusation), ``lookahead`` and ``ismcts`` (search);
on the board, movement policies around them (``*-board``, ``deductive-target``, ...).

Opponents of other styles (``styles``): ``aggressive-accuser``, ``own-evidence``,
``own-card-prober``, ``memory-notebook``; ``racer-watch`` times racer's gambles on each
opponent's own view (``opponent_model``); ``racer-threat`` lowers racer's gamble floor as the
closest opponent nears a right accusation (``threat_racer``); ``racer-two-step`` chooses its
question by the best guess's expected chance after it and the best follow-up (``two_step``);
``racer-reader`` weighs worlds by what each opponent's own suggestions say about its hand
(``suggestion_evidence``), the strongest at three players and level with ``racer`` at four and six.

Modules: ``deduction`` (notebook to racer), ``styles`` (the other styles), ``questions`` (exact scoring of suggestions),
``lookahead``, ``ismcts``, ``board``.
"""

#: this game's agents by name: ``"module:class"``, imported when first built
AGENTS: dict[str, str] = {
    "notebook": "agents.clue.deduction:NotebookAgent",
    "deductive": "agents.clue.deduction:DeductiveAgent",
    "infogain": "agents.clue.deduction:InfogainAgent",
    "racer": "agents.clue.deduction:RacerAgent",
    "lookahead": "agents.clue.lookahead:LookaheadAgent",
    "ismcts": "agents.clue.ismcts:ISMCTSAgent",
    "aggressive-accuser": "agents.clue.styles:AggressiveAccuserAgent",
    "own-evidence": "agents.clue.styles:OwnEvidenceAgent",
    "own-card-prober": "agents.clue.styles:OwnCardProberAgent",
    "memory-notebook": "agents.clue.styles:MemoryNotebookAgent",
    "racer-watch": "agents.clue.opponent_model:RaceWatchAgent",
    "racer-lap": "agents.clue.race_timing:LapRacerAgent",
    "racer-threat": "agents.clue.threat_racer:ThreatRacerAgent",
    "racer-two-step": "agents.clue.two_step:TwoStepRacerAgent",
    "racer-reader": "agents.clue.suggestion_evidence:ReaderRacerAgent",
    "notebook-board": "agents.clue.board:NotebookBoardAgent",
    "deductive-board": "agents.clue.board:DeductiveBoardAgent",
    "deductive-target": "agents.clue.board:DeductiveTargetAgent",
    "infogain-board": "agents.clue.board:InfogainBoardAgent",
    "infogain-nearest-board": "agents.clue.board:InfogainNearestAgent",
    "infogain-planner-board": "agents.clue.board:InfogainPlannerAgent",
}

__all__ = ["AGENTS"]
