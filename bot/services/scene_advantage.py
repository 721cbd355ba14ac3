"""Create an advantage on the scene: what a roll aims at when it is made, and its outcome on
the scene's (or the campaign's game) aspects when it resolves, discovering a hidden aspect a
player named by its words (inside the caller's transaction)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.errors import RuleError
from bot.fate.aspects import (
    GM,
    MAX_ASPECT_TEXT,
    AspectKind,
    Event,
    FailChoice,
    OutcomeKind,
    create_advantage_existing,
    create_advantage_new,
    discover,
)
from bot.fate.rolls import AdvantageTarget
from bot.fate.scene import Scene, next_aspect_id, put_aspect
from bot.services.campaign_play import CampaignPlay, read_play_in
from bot.services.campaigns import CampaignInfo
from bot.services.scene_state import (
    AspectRef,
    find_ref,
    find_zone_key,
    key_of,
    save_aspect_in,
    save_scene_in,
    scene_of,
    scene_row_in,
)


async def advantage_target_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    *,
    aspect: str,
    zone: str | None,
    is_gm: bool,
    enemy_on_fail: bool = False,
    not_created_on_fail: bool = False,
) -> AdvantageTarget:
    """What a create-an-advantage roll aims at: an aspect in play (by key or text) or a new one.

    Checked when the roll is made, so a roll never starts on something it cannot change."""
    row = await scene_row_in(session, campaign, channel_id)
    scene = scene_of(row)
    play = await read_play_in(session, campaign.id)
    found = find_ref(scene, play, aspect, channel_id)
    discovers = None
    if found is not None and found.aspect.hidden and not is_gm:
        # its very words (not its key or id, which a player could count through): an attempt
        # at a new aspect that, made, discovers this one; anything else: as if it were absent
        if same_words(found.aspect.text, aspect) and found.aspect.kind is not AspectKind.BOOST:
            discovers = key_of(found, channel_id)
        found = None
    if found is not None:
        if found.aspect.kind is AspectKind.BOOST:
            raise RuleError(
                f"'{found.aspect.text}' is a boost and cannot gain invokes; name a new aspect."
            )
        if zone:
            raise RuleError("A zone only goes with a new aspect; leave `zone` empty.")
        return AdvantageTarget(
            text=found.aspect.text, key=key_of(found, channel_id), hidden=found.aspect.hidden
        )
    if aspect.strip().startswith("scene:"):
        raise RuleError(
            "That aspect is no longer in play; pick one from the suggestions or type a new one."
        )
    text = " ".join(aspect.split())
    if not text or len(text) > MAX_ASPECT_TEXT:
        raise RuleError(f"Name the new aspect in 1 to {MAX_ASPECT_TEXT} characters.")
    return AdvantageTarget(
        text=text,
        zone=find_zone_key(scene, zone),
        enemy_on_fail=enemy_on_fail,
        not_created_on_fail=not_created_on_fail,
        discovers=discovers,
    )


def _enemy(scene: Scene, actor_is_npc: bool, opponent: str | None, *, needed: bool) -> str:
    """Who holds a free invoke an advantage's failure gives away: the GM against a PC; a PC
    against an NPC (an NPC's side holding its own enemy's invoke would be no cost)."""
    if not actor_is_npc:
        return GM
    enemy = opponent or next((p.id for p in scene.participants if p.is_pc), None)
    if enemy is None and needed:
        raise RuleError(
            "No PC is in this scene to hold the enemy's free invoke: add them to the scene "
            "first (`/scene add`), or choose **Don't create it**."
        )
    return enemy or GM  # nothing is given away: who it would have been does not matter


def _discovered(
    scene: Scene, play: CampaignPlay, target: AdvantageTarget, channel_id: int
) -> AspectRef | None:
    """The GM-hidden aspect a new aspect's words discover. Found by key, it must still be
    hidden with those words: a new scene numbers its aspects anew, and a roll may outlive
    its scene."""
    if not target.discovers:
        return None
    hidden = find_ref(scene, play, target.discovers, channel_id)
    if hidden is None or not (hidden.aspect.hidden and same_words(hidden.aspect.text, target.text)):
        return None
    return hidden


def same_words(text: str, typed: str) -> bool:
    """Whether `typed` is `text` (any case and spacing), not an aspect's id or key."""
    return " ".join(text.split()).casefold() == " ".join(typed.split()).casefold()


def _aimed_at(
    scene: Scene, play: CampaignPlay, target: AdvantageTarget, channel_id: int
) -> AspectRef | None:
    """The aspect in play a resolving advantage adds invokes to: its key's, or one with the
    new aspect's words that everyone sees (None: make the new one)."""
    found = find_ref(scene, play, target.key or target.text, channel_id)
    if found is not None and not same_words(found.aspect.text, target.text):
        return None  # another aspect under the key, or one whose id is the new aspect's text
    if found is not None and target.key is None and found.aspect.hidden:
        return None  # hidden since the roll was made: the new aspect is made beside it
    return found


async def apply_advantage_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    target: AdvantageTarget,
    outcome: OutcomeKind,
    *,
    actor: str,
    extra_invokes: int = 0,
    enemy_on_fail: bool = False,
    actor_is_npc: bool = False,
    opponent: str | None = None,
) -> list[Event]:
    """Apply a resolved create-an-advantage roll to the scene (or to a game aspect). A free
    invoke a failure gives away goes to the enemy: the GM for a PC's roll; for an NPC's, the
    PC who opposed it (`opponent`), else the scene's first PC."""
    row = await scene_row_in(session, campaign, channel_id)
    scene = scene_of(row)
    gives_away = target.key is not None or enemy_on_fail or target.enemy_on_fail
    enemy = _enemy(scene, actor_is_npc, opponent, needed=gives_away and outcome is OutcomeKind.FAIL)
    play = await read_play_in(session, campaign.id)
    hidden = _discovered(scene, play, target, channel_id)
    found = None if hidden is not None else _aimed_at(scene, play, target, channel_id)
    if found is None and target.key is not None:
        raise RuleError(
            f"'{target.text}' is no longer in play, so this advantage changes nothing; "
            "make a new roll on another aspect."
        )
    if found is not None:
        updated, events = create_advantage_existing(
            found.aspect, outcome, actor=actor, enemy=enemy, extra_invokes=extra_invokes
        )
        await save_aspect_in(session, campaign, channel_id, (row, scene), found, updated)
        return events
    owner = target.zone if target.zone in {z.key for z in scene.zones} else None
    made, events = create_advantage_new(
        outcome,
        aspect_id=next_aspect_id(scene),
        text=target.text,
        actor=actor,
        kind=AspectKind.ZONE if owner else AspectKind.SITUATION,
        owner=owner,
        hidden=target.hidden,
        enemy=enemy,
        fail_choice=FailChoice.ENEMY_INVOKE if gives_away else FailChoice.NOT_CREATED,
        extra_invokes=extra_invokes,
    )
    if made is None:
        return events
    if hidden is not None and made.kind is not AspectKind.BOOST:
        # the GM had it hidden: made, it is found (a tie's boost is still a boost of its own)
        revealed, events = discover(hidden.aspect, made)
        await save_aspect_in(session, campaign, channel_id, (row, scene), hidden, revealed)
        return events
    scene, _ = put_aspect(scene, made, new=True)
    await save_scene_in(session, row, scene)
    return events
