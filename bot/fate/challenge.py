"""Challenges: a list of overcome tasks; the GM reads the mix of results."""

from __future__ import annotations

from pydantic import BaseModel, Field

from bot.errors import RuleError
from bot.fate.aspects import Event, OutcomeKind, classify
from bot.fate.words import plural

MAX_TASKS = 10
MAX_TEXT = 200


class ChallengeError(RuleError):
    """A challenge step the rules do not allow."""


class TaskResult(BaseModel):
    roller: str
    effort: int
    outcome: OutcomeKind
    shifts: int
    cost: str = ""


class ChallengeTask(BaseModel):
    id: str
    skill: str
    difficulty: int
    description: str = ""
    assigned_to: str | None = None
    result: TaskResult | None = None


class Challenge(BaseModel):
    id: str
    title: str = ""
    tasks: list[ChallengeTask] = Field(default_factory=list)

    def task(self, task_id: str) -> ChallengeTask:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise ChallengeError("There is no such task in this challenge.")


class ChallengeSummary(BaseModel):
    successes: int
    with_style: int
    ties: int
    failures: int
    open: int

    @property
    def complete(self) -> bool:
        return self.open == 0


def start_challenge(
    challenge_id: str, tasks: list[tuple[str, int, str]], title: str = ""
) -> tuple[Challenge, list[Event]]:
    """tasks: (skill, difficulty, description)."""
    if not 1 <= len(tasks) <= MAX_TASKS:
        raise ChallengeError(f"A challenge has 1 to {MAX_TASKS} tasks.")
    built = []
    for number, (skill, difficulty, description) in enumerate(tasks, start=1):
        if not skill.strip():
            raise ChallengeError("Each task needs a skill.")
        built.append(
            ChallengeTask(
                id=f"t{number}",
                skill=skill.strip(),
                difficulty=difficulty,
                description=description.strip()[:MAX_TEXT],
            )
        )
    return Challenge(id=challenge_id, title=title[:MAX_TEXT], tasks=built), [
        Event(
            kind="challenge_started",
            text=f"A challenge of {plural(len(built), 'task')}.",
            data={"tasks": len(built)},
        )
    ]


def _put(state: Challenge, task: ChallengeTask) -> Challenge:
    return state.model_copy(update={"tasks": [task if t.id == task.id else t for t in state.tasks]})


def assign(
    state: Challenge, task_id: str, character_id: str | None
) -> tuple[Challenge, list[Event]]:
    """The GM assigns (or unassigns, with None) a task."""
    task = state.task(task_id)
    if task.result is not None:
        raise ChallengeError("That task is already rolled.")
    return _put(state, task.model_copy(update={"assigned_to": character_id})), [
        Event(
            kind="task_assigned",
            text=f"{task.skill} task assigned.",
            who=character_id,
            data={"task": task_id},
        )
    ]


def claim(state: Challenge, task_id: str, character_id: str) -> tuple[Challenge, list[Event]]:
    task = state.task(task_id)
    if task.result is not None:
        raise ChallengeError("That task is already rolled.")
    if task.assigned_to not in (None, character_id):
        raise ChallengeError("Someone else has that task; pick an open one.")
    return _put(state, task.model_copy(update={"assigned_to": character_id})), [
        Event(
            kind="task_claimed",
            text=f"{task.skill} task claimed.",
            who=character_id,
            data={"task": task_id},
        )
    ]


def record_roll(
    state: Challenge, task_id: str, roller: str, effort: int, cost: str = ""
) -> tuple[Challenge, list[Event]]:
    task = state.task(task_id)
    if task.result is not None:
        raise ChallengeError("That task is already rolled.")
    if task.assigned_to not in (None, roller):
        raise ChallengeError("That task belongs to someone else.")
    outcome = classify(effort, task.difficulty)
    result = TaskResult(
        roller=roller,
        effort=effort,
        outcome=outcome,
        shifts=effort - task.difficulty,
        cost=cost.strip()[:MAX_TEXT],
    )
    task = task.model_copy(update={"assigned_to": roller, "result": result})
    return _put(state, task), [
        Event(
            kind="task_rolled",
            text=f"{task.skill}: {outcome.value.replace('_', ' ')}.",
            who=roller,
            data={"task": task_id, "outcome": outcome.value},
        )
    ]


def set_cost(state: Challenge, task_id: str, cost: str) -> Challenge:
    """The GM writes down the cost of a tie or a success at a cost after the roll."""
    task = state.task(task_id)
    if task.result is None:
        raise ChallengeError("Roll the task before noting its cost.")
    result = task.result.model_copy(update={"cost": cost.strip()[:MAX_TEXT]})
    return _put(state, task.model_copy(update={"result": result}))


def summary(state: Challenge) -> ChallengeSummary:
    outcomes = [t.result.outcome for t in state.tasks if t.result is not None]
    return ChallengeSummary(
        successes=sum(
            1 for o in outcomes if o in (OutcomeKind.SUCCESS, OutcomeKind.SUCCESS_WITH_STYLE)
        ),
        with_style=outcomes.count(OutcomeKind.SUCCESS_WITH_STYLE),
        ties=outcomes.count(OutcomeKind.TIE),
        failures=outcomes.count(OutcomeKind.FAIL),
        open=len(state.tasks) - len(outcomes),
    )
