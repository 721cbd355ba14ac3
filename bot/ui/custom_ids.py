"""Every component's custom id in one place: its prefix, how it is built and the regex that
reads it back.

A custom id is user input (DESIGN.md): the regexes are matched against the whole id, every part
is bounded, and a handler still loads its row scoped to the guild. Discord allows at most
CUSTOM_ID_LIMIT characters. A new kind of button, select or persistent modal gets its builder
and its template here and one `IdFormat` in FORMATS; tests/unit/core/test_custom_ids.py checks
that no two features share a prefix, that no id is read by another feature's regex and that the
widest id of each format fits.

Conventions: `<prefix>:<row id>[:<version>]:<what>`. A row id is a database id or a Discord
snowflake; the version is the row's optimistic-concurrency version the clicker saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.fate.rolls import InvokeMode

CUSTOM_ID_LIMIT = 100


def digits_up_to(limit: int) -> str:
    """A regex for the decimal numbers 0..limit (no leading zeros beyond the first digit's
    place), so that a forged id past a column's range is refused by the pattern itself."""
    top = str(limit)
    branches = [rf"\d{{1,{len(top) - 1}}}"] if len(top) > 1 else []
    for i, digit in enumerate(top):
        rest = len(top) - i - 1
        lower = 1 if i == 0 and len(top) > 1 else 0
        if int(digit) > lower:
            tail = rf"\d{{{rest}}}" if rest else ""
            branches.append(f"{top[:i]}[{lower}-{int(digit) - 1}]{tail}")
    branches.append(top)
    return "(?:" + "|".join(branches) + ")"


ID = digits_up_to(2**63 - 1)  # a database id or a Discord snowflake: a BIGINT
VERSION = digits_up_to(2**31 - 1)  # versions are INTEGER columns

ABSTRACT_TEMPLATE = r"(?!)"  # a base class of DynamicItems that is never matched itself

# the widest values the builders are given (used by FORMATS' samples)
_BIG = 2**63 - 1  # the largest BIGINT row id or snowflake
_VERSION = 2**31 - 1  # versions are INTEGER columns


@dataclass(frozen=True)
class IdFormat:
    """One kind of custom id: who owns it, the prefixes it starts with, its regex, and the
    widest ids its builder makes (the test checks they match and fit)."""

    feature: str
    prefixes: tuple[str, ...]
    template: str
    widest: tuple[str, ...]


# rolls ----------------------------------------------------------------------------------------
# roll:<id>:<act> on the roll message; the pickers carry the version the clicker saw.
ROLL_ACTS = (
    "inv",
    "rr",
    "tw",
    "def",
    "close",
    "hos",
    "scale",
    "adv",
    "advgm",
    "advno",
    "void",
    "gm",
)
ROLL_BUTTON_TEMPLATE = rf"roll:(?P<id>{ID}):(?P<act>{'|'.join(ROLL_ACTS)})"
STUNT_SELECT_TEMPLATE = rf"roll:(?P<id>{ID}):stunt"
ASPECT_SELECT_TEMPLATE = rf"rpa:(?P<id>{ID}):(?P<ver>{VERSION}):(?P<mode>[br]):(?P<hostile>[01])"
PAYMENT_SELECT_TEMPLATE = (
    rf"rpp:(?P<id>{ID}):(?P<ver>{VERSION}):(?P<mode>[br]):(?P<hostile>[01]):(?P<key>[^\s]{{1,60}})"
)
DEFEND_SELECT_TEMPLATE = rf"rdf:(?P<id>{ID})"
SCALE_SELECT_TEMPLATE = rf"rsc:(?P<id>{ID}):(?P<ver>{VERSION})(?::(?P<r>\d))?(?::(?P<o>\d))?"
RULES_SHARE_TEMPLATE = r"rules:share:(?P<key>[a-z0-9_]{1,40})"


def roll_button_id(roll_id: int, act: str) -> str:
    return f"roll:{roll_id}:{act}"


def stunt_select_id(roll_id: int) -> str:
    return f"roll:{roll_id}:stunt"


def aspect_select_id(roll_id: int, version: int, mode: InvokeMode, hostile: bool) -> str:
    return f"rpa:{roll_id}:{version}:{_mode_code(mode)}:{int(hostile)}"


def payment_select_id(
    roll_id: int, version: int, mode: InvokeMode, hostile: bool, aspect_key: str
) -> str:
    return f"rpp:{roll_id}:{version}:{_mode_code(mode)}:{int(hostile)}:{aspect_key}"


def defend_select_id(roll_id: int) -> str:
    return f"rdf:{roll_id}"


def scale_select_id(roll_id: int, version: int, *levels: int) -> str:
    return ":".join([f"rsc:{roll_id}:{version}", *(str(level) for level in levels)])


def rules_share_id(key: str) -> str:
    return f"rules:share:{key}"


def _mode_code(mode: InvokeMode) -> str:
    return "r" if mode is InvokeMode.REROLL else "b"


def mode_from_code(code: str) -> InvokeMode:
    return InvokeMode.REROLL if code == "r" else InvokeMode.BONUS


# conflicts, contests, challenges -------------------------------------------------------------
# <kind>b:<id>:<version>:<action> (buttons), <kind>s:...[:<arg>] (selects); kind = cf|ct|ch.
TRACKER_KINDS = {"conflict": "cf", "contest": "ct", "challenge": "ch"}
TRACKER_ACTION = r"[a-z]{1,8}"
TRACKER_ARG_MAX = 40
_KINDS = "|".join(TRACKER_KINDS.values())
TRACKER_BUTTON_TEMPLATE = (
    rf"(?P<p>{_KINDS})b:(?P<id>{ID}):(?P<v>{VERSION}):(?P<act>{TRACKER_ACTION})"
)
TRACKER_SELECT_TEMPLATE = (
    rf"(?P<p>{_KINDS})s:(?P<id>{ID}):(?P<v>{VERSION}):(?P<act>{TRACKER_ACTION})"
    rf"(?::(?P<arg>[^:]{{0,{TRACKER_ARG_MAX}}}))?"
)


def tracker_button_id(prefix: str, ident: int, version: int, action: str) -> str:
    return f"{prefix}b:{ident}:{version}:{action}"


def tracker_select_id(
    prefix: str, ident: int, version: int, action: str, arg: str | None = None
) -> str:
    return f"{prefix}s:{ident}:{version}:{action}" + (f":{arg}" if arg else "")


# characters ------------------------------------------------------------------------------------
# The guided flow's buttons and menus carry the draft's version: a step's controls stop once the
# draft has moved on. Ids without it (posted before versions were added) are still read.
_DRAFT_VERSION = rf"(?::(?P<ver>{VERSION}))?"
DRAFT_MODAL_TEMPLATE = rf"cdraftm:(?P<id>{ID}):(?P<step>[a-z]{{1,20}})"
DRAFT_BUTTON_TEMPLATE = rf"cdraft:(?P<id>{ID}){_DRAFT_VERSION}:(?P<what>[a-z]{{1,20}})"
DRAFT_SELECT_TEMPLATE = rf"cdraftsel:(?P<id>{ID}){_DRAFT_VERSION}:(?P<what>group|mantle)"
MANTLE_STUNT_SELECT_TEMPLATE = rf"cdraftms:(?P<id>{ID}){_DRAFT_VERSION}:(?P<what>free|extra)"
STUNT_WRITER_TEMPLATE = rf"stuntw:(?P<kind>bonus|rule):(?P<char>{ID}):(?P<nonce>{ID})"
# "Fix what I typed" under a refused form: the row keeping the answers that were typed.
FORM_FIX_TEMPLATE = rf"cfix:(?P<id>{ID})"


def draft_modal_id(draft_id: int, step: str) -> str:
    return f"cdraftm:{draft_id}:{step}"


def _draft_id(prefix: str, draft_id: int, version: int | None, what: str) -> str:
    return (
        f"{prefix}:{draft_id}:{what}"
        if version is None
        else f"{prefix}:{draft_id}:{version}:{what}"
    )


def draft_button_id(draft_id: int, action: str, version: int | None = None) -> str:
    return _draft_id("cdraft", draft_id, version, action)


def draft_select_id(draft_id: int, what: str, version: int | None = None) -> str:
    return _draft_id("cdraftsel", draft_id, version, what)


def mantle_stunt_select_id(draft_id: int, what: str, version: int | None = None) -> str:
    return _draft_id("cdraftms", draft_id, version, what)


def form_fix_id(answer_id: int) -> str:
    return f"cfix:{answer_id}"


def stunt_writer_id(kind: str, character_id: int, nonce: int) -> str:
    return f"stuntw:{kind}:{character_id}:{nonce}"


# the game table ----------------------------------------------------------------------------
LOBBY_OPS_TEMPLATE = "join|leave|ai|unai|start"
LOBBY_BUTTON_TEMPLATE = rf"ftg:l:(?P<game>{ID}):(?P<op>{LOBBY_OPS_TEMPLATE})"
LOBBY_OPTION_TEMPLATE = rf"ftg:o:(?P<game>{ID}):(?P<name>[A-Za-z_]{{1,40}})"
MORE_OPTIONS_TEMPLATE = rf"ftg:m:(?P<game>{ID})"
HAND_BUTTON_TEMPLATE = rf"ftg:h:(?P<game>{ID})(?::(?P<page>\d{{1,4}}):(?P<tag>[a-z]))?"
# "Card texts" on the board or a hand, then its page buttons (tag p/n keeps ids unique).
TEXTS_BUTTON_TEMPLATE = rf"ftg:t:(?P<game>{ID})(?::(?P<page>\d{{1,4}}):(?P<tag>[a-z]))?"
# "Game log" on the board, then its page buttons: a game's whole public history.
LOG_BUTTON_TEMPLATE = rf"ftg:g:(?P<game>{ID})(?::(?P<page>\d{{1,4}}):(?P<tag>[a-z]))?"
GAME_ACTION_TEMPLATE = rf"ftg:a:(?P<game>{ID}):(?P<version>{VERSION}):(?P<action>[^\s]{{1,40}})"


def lobby_button_id(game_id: int, op: str) -> str:
    return f"ftg:l:{game_id}:{op}"


def lobby_option_id(game_id: int, name: str) -> str:
    return f"ftg:o:{game_id}:{name}"


def more_options_id(game_id: int) -> str:
    return f"ftg:m:{game_id}"


def hand_button_id(game_id: int, page: int | None = None, tag: str = "r") -> str:
    return f"ftg:h:{game_id}" if page is None else f"ftg:h:{game_id}:{page}:{tag}"


def texts_button_id(game_id: int, page: int | None = None, tag: str = "p") -> str:
    return f"ftg:t:{game_id}" if page is None else f"ftg:t:{game_id}:{page}:{tag}"


def log_button_id(game_id: int, page: int | None = None, tag: str = "p") -> str:
    return f"ftg:g:{game_id}" if page is None else f"ftg:g:{game_id}:{page}:{tag}"


def game_action_id(game_id: int, version: int, action_id: str) -> str:
    return f"ftg:a:{game_id}:{version}:{action_id}"


# scenes, safety, economy, help -----------------------------------------------------------------
SCENE_BOARD_TEMPLATE = rf"sceneboard:(?P<channel>{ID})"
XCARD_TEMPLATE = rf"xcard:(?P<channel>{ID})"
LEDGER_PAGE_TEMPLATE = (
    rf"fplog:(?P<campaign>{ID}):(?P<page>\d{{1,6}}):(?P<who>a|g|{ID}):(?P<dir>[pn])"
)
UNDO_CONFIRM_TEMPLATE = rf"fpundo:(?P<campaign>{ID}):(?P<entry>{ID})"
COMPEL_BUTTON_TEMPLATE = rf"compel:(?P<id>{ID}):(?P<act>[arw])"
HELP_PAGE_TEMPLATE = r"help:(?P<page>\d{1,4}):(?P<dir>[pn])"


def scene_board_id(channel_id: int) -> str:
    return f"sceneboard:{channel_id}"


def xcard_id(channel_id: int) -> str:
    return f"xcard:{channel_id}"


def ledger_page_id(campaign_id: int, page: int, who: str, direction: str) -> str:
    return f"fplog:{campaign_id}:{page}:{who}:{direction}"


def undo_confirm_id(campaign_id: int, entry_id: int) -> str:
    return f"fpundo:{campaign_id}:{entry_id}"


def compel_button_id(offer_id: int, act: str) -> str:
    return f"compel:{offer_id}:{act}"


def help_page_id(page: int, direction: str) -> str:
    return f"help:{page}:{direction}"


# the declarations the test checks --------------------------------------------------------------
_ARG = "9" * TRACKER_ARG_MAX
FORMATS: tuple[IdFormat, ...] = (
    IdFormat(
        "rolls",
        ("roll",),
        ROLL_BUTTON_TEMPLATE,
        tuple(roll_button_id(_BIG, act) for act in ROLL_ACTS),
    ),
    IdFormat("rolls", ("roll",), STUNT_SELECT_TEMPLATE, (stunt_select_id(_BIG),)),
    IdFormat(
        "rolls",
        ("rpa",),
        ASPECT_SELECT_TEMPLATE,
        (aspect_select_id(_BIG, _VERSION, InvokeMode.REROLL, True),),
    ),
    IdFormat(
        "rolls",
        ("rpp",),
        PAYMENT_SELECT_TEMPLATE,
        (payment_select_id(_BIG, _VERSION, InvokeMode.BONUS, True, "x" * 60),),
    ),
    IdFormat("rolls", ("rdf",), DEFEND_SELECT_TEMPLATE, (defend_select_id(_BIG),)),
    IdFormat("rolls", ("rsc",), SCALE_SELECT_TEMPLATE, (scale_select_id(_BIG, _VERSION, 3, 3),)),
    IdFormat("rules", ("rules",), RULES_SHARE_TEMPLATE, (rules_share_id("k" * 40),)),
    IdFormat(
        "encounters",
        tuple(f"{p}b" for p in TRACKER_KINDS.values()),
        TRACKER_BUTTON_TEMPLATE,
        tuple(tracker_button_id(p, _BIG, _VERSION, "a" * 8) for p in TRACKER_KINDS.values()),
    ),
    IdFormat(
        "encounters",
        tuple(f"{p}s" for p in TRACKER_KINDS.values()),
        TRACKER_SELECT_TEMPLATE,
        tuple(tracker_select_id(p, _BIG, _VERSION, "a" * 8, _ARG) for p in TRACKER_KINDS.values()),
    ),
    IdFormat("creation", ("cdraftm",), DRAFT_MODAL_TEMPLATE, (draft_modal_id(_BIG, "s" * 20),)),
    IdFormat(
        "creation",
        ("cdraft",),
        DRAFT_BUTTON_TEMPLATE,
        (draft_button_id(_BIG, "a" * 20, _VERSION), draft_button_id(_BIG, "a" * 20)),
    ),
    IdFormat(
        "creation",
        ("cdraftsel",),
        DRAFT_SELECT_TEMPLATE,
        (draft_select_id(_BIG, "mantle", _VERSION), draft_select_id(_BIG, "mantle")),
    ),
    IdFormat(
        "creation",
        ("cdraftms",),
        MANTLE_STUNT_SELECT_TEMPLATE,
        (mantle_stunt_select_id(_BIG, "extra", _VERSION), mantle_stunt_select_id(_BIG, "extra")),
    ),
    IdFormat("forms", ("cfix",), FORM_FIX_TEMPLATE, (form_fix_id(_BIG),)),
    IdFormat(
        "stunt writer",
        ("stuntw",),
        STUNT_WRITER_TEMPLATE,
        (stunt_writer_id("bonus", _BIG, _BIG),),
    ),
    IdFormat("game table", ("ftg",), LOBBY_BUTTON_TEMPLATE, (lobby_button_id(_BIG, "leave"),)),
    IdFormat("game table", ("ftg",), LOBBY_OPTION_TEMPLATE, (lobby_option_id(_BIG, "n" * 40),)),
    IdFormat("game table", ("ftg",), MORE_OPTIONS_TEMPLATE, (more_options_id(_BIG),)),
    IdFormat(
        "game table",
        ("ftg",),
        HAND_BUTTON_TEMPLATE,
        (hand_button_id(_BIG), hand_button_id(_BIG, 9999, "r")),
    ),
    IdFormat(
        "game table",
        ("ftg",),
        TEXTS_BUTTON_TEMPLATE,
        (texts_button_id(_BIG), texts_button_id(_BIG, 9999, "n")),
    ),
    IdFormat(
        "game table",
        ("ftg",),
        LOG_BUTTON_TEMPLATE,
        (log_button_id(_BIG), log_button_id(_BIG, 9999, "n")),
    ),
    IdFormat(
        "game table", ("ftg",), GAME_ACTION_TEMPLATE, (game_action_id(_BIG, _VERSION, "a" * 40),)
    ),
    IdFormat("scene board", ("sceneboard",), SCENE_BOARD_TEMPLATE, (scene_board_id(_BIG),)),
    IdFormat("safety", ("xcard",), XCARD_TEMPLATE, (xcard_id(_BIG),)),
    IdFormat(
        "fate point ledger",
        ("fplog",),
        LEDGER_PAGE_TEMPLATE,
        (ledger_page_id(_BIG, 999999, str(_BIG), "n"),),
    ),
    IdFormat("fate point undo", ("fpundo",), UNDO_CONFIRM_TEMPLATE, (undo_confirm_id(_BIG, _BIG),)),
    IdFormat("compels", ("compel",), COMPEL_BUTTON_TEMPLATE, (compel_button_id(_BIG, "w"),)),
    IdFormat("help", ("help",), HELP_PAGE_TEMPLATE, (help_page_id(9999, "n"),)),
)
