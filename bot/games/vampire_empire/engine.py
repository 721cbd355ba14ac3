"""Vampire Empire as a pure engine (see bot/games/base.py and the rules reference).

The vampire player (side 0) secretly holds three of the nine characters, the human player
(side 1) knows two humans. A turn: discard and draw to eight, (vampires) reveal, then one
compulsory action: hide, holy water or combat. The state is plain lists (state.py); a move
forks it once and edits the copy. An AI-only game plays on one plain working state changed in
place (``play_ai_summary``); its AI chooses among plain moves (plain.py, which the table shows
as Actions) from its seat's plain private view (``views.SeatView``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, cast

from bot.errors import RuleError
from bot.fate.words import plural
from bot.games.base import (
    Action,
    GameEngine,
    GameEvent,
    GameResult,
    IllegalAction,
    LastChoice,
    Move,
    event,
)
from bot.games.simulate import MAX_STEPS
from bot.games.vampire_empire import views
from bot.games.vampire_empire.ai import (
    Offer,
    choose,
    discard,
    done_at_once,
    fight_choice,
    turn_choice,
)
from bot.games.vampire_empire.cards import HAND_SIZE, CardDef, Pack, load_packs
from bot.games.vampire_empire.plain import (
    BACK,
    CHARACTER_BITS,
    DRAW,
    FIGHT,
    HIDE,
    HOLY_WATER,
    HOLY_WATER_BIT,
    NO_ATTACK,
    PASS,
    REVEAL,
    TAKE_NOTHING,
    VAMPIRE_BIT,
    Cards,
    distinct,
    done,
    plain_cards,
    the,
)
from bot.games.vampire_empire.state import (
    HUMANS,
    VAMPIRES,
    Combat,
    PlainCombat,
    PlainState,
    VeOptions,
    VeState,
    fork,
    model,
    new_plain,
)

CASTLE_SIZE = 3


class VeRuleError(RuleError):
    """A move the Vampire Empire rules do not allow."""


class _Move:
    """One apply call: the forked state, the card list and the events."""

    loud = True  # it keeps events (texts that only events need are made when it does)

    def __init__(self, state: VeState, cards: Cards, rng: random.Random) -> None:
        self.s = state
        self.cards = cards
        self.rng = rng
        self.events: list[GameEvent] = []
        # whether the castle, the dead or the revealed changed (what the end depends on)
        self.changed = False

    def say(self, text: str) -> None:
        self.events.append(event(text))

    def whisper(self, side: int, text: str) -> None:
        self.events.append(event(text, "private", audience=[self.s.seats[side]]))

    def name(self, side: int) -> str:
        return ("vampire player", "human player")[side]

    # -- piles -------------------------------------------------------------------------------
    def take_from_hand(self, side: int, card: int) -> None:
        self.s.hands[side].remove(card)

    def to_played(self, side: int, cards: list[int]) -> None:
        pile = self.s.moats if self.s.options.played_cards_to == "moat" else self.s.cellars
        pile[side].extend(cards)

    def draw_to(self, side: int, size: int) -> int:
        s = self.s
        hand, deck = s.hands[side], s.decks[side]
        drawn = 0
        while len(hand) < size:
            if not deck and s.cellars[side] and s.options.reshuffle_cellar:
                s.decks[side] = deck = s.cellars[side]
                s.cellars[side] = []
                self.rng.shuffle(deck)
                self.say(f"The {self.name(side)}'s cellar is shuffled into a new deck.")
            if not deck:
                break
            hand.append(deck.pop(0))
            drawn += 1
        return drawn

    # -- characters ----------------------------------------------------------------------------
    def clear_markers(self, character: int) -> None:
        s = self.s
        s.marker_supply += s.attack_markers[character] + s.defence_markers[character]
        s.attack_markers[character] = 0
        s.defence_markers[character] = 0

    def refill(self) -> None:
        s = self.s
        self.changed = True  # (every change of the castle or the dead ends here)
        while len(s.castle) < CASTLE_SIZE and s.city:
            arrived = s.city.pop(0)
            s.castle.append(arrived)
            if self.loud:
                self.say(f"{the(arrived).capitalize()} enters the castle from the city.")

    def kill(self, character: int) -> None:
        s = self.s
        s.castle.remove(character)
        self.clear_markers(character)
        s.dead.append(character)
        if self.loud:
            was = "a vampire" if character in s.vampires else "a human"
            self.say(f"{the(character).capitalize()} dies. The vampire player declares: {was}.")
        self.refill()

    def reveal(self, character: int, how: str) -> None:
        self.changed = True
        self.s.revealed.append(character)
        self.say(f"{the(character).capitalize()} {how}: revealed as a vampire.")

    def fight(
        self, attacker: int, target: int, side: int, start_defence: int, holy: list[int]
    ) -> Combat:
        """A new combat (``holy``: the holy water card that begins it, if any)."""
        return Combat(
            attacker=attacker,
            target=target,
            side=side,
            start_defence=start_defence,
            attack_cards=holy,
            holy_water=bool(holy),
        )


class _QuietMove(_Move):
    """A _Move of an AI-only game, on its working state (``PlainState``, which the rules read
    and write as they do the model); it keeps no events (nobody reads its log)."""

    loud = False

    def __init__(self, state: PlainState, cards: Cards, rng: random.Random) -> None:
        super().__init__(cast(VeState, state), cards, rng)

    def say(self, text: str) -> None:
        return None

    def whisper(self, side: int, text: str) -> None:
        return None

    def fight(
        self, attacker: int, target: int, side: int, start_defence: int, holy: list[int]
    ) -> Combat:
        combat = PlainCombat(attacker, target, side, start_defence, holy, bool(holy))
        return cast(Combat, combat)


class VampireEmpireEngine(GameEngine[VeState, VeOptions]):
    """The rules of Vampire Empire for the game table."""

    key = views.GAME_KEY
    name = "Vampire Empire"
    min_players = 2
    max_players = 2
    options_model = VeOptions
    state_model = VeState

    def __init__(self) -> None:
        self._chosen = LastChoice()  # the AI's last choice, applied without a second check
        # what an action does, by the part of its id before the first ":"
        self._handlers: dict[str, Callable[[_Move, int, str], None]] = {
            "draw": self._draw,
            "x": self._discard,
            "r": self._reveal,
            "m": self._marker,
            "t": self._take_start,
            "k": self._take,
            "h": self._hide,
            "w": self._holy_water,
            "a": self._holy_attack,
            "c": self._combat_start,
            "p": self._combat_card,
            "n": self._cancel,
            "y": self._pay,
            "back": self._back,
            "done": self._combat_done,
            "pass": self._pass,
            "d": self._pass,
        }

    # -- content -----------------------------------------------------------------------------
    def _pack(self, key: str) -> Pack:
        packs = load_packs()
        if key not in packs:
            raise VeRuleError(f"There is no deck pack {key!r}; choose one of: {', '.join(packs)}.")
        return packs[key]

    def cards(self, state: VeState) -> tuple[CardDef, ...]:
        return _instances(state.options.deck_pack)

    def plain_cards(self, state: VeState) -> Cards:
        """``cards`` as the rules read them (plain, with their moves)."""
        key = state.options.deck_pack
        if key not in load_packs():
            raise VeRuleError(f"There is no deck pack {key!r}.")
        return plain_cards(key)

    def option_values(self) -> dict[str, list[str]]:
        return {"deck_pack": list(load_packs())}

    def option_value_labels(self) -> dict[str, dict[str, str]]:
        return {"deck_pack": {k: p.pack.name for k, p in load_packs().items()}}

    def validate_pack_text(self, text: str, filename: str) -> list[str] | None:
        from bot.games.vampire_empire.cards import validate_pack_text

        return validate_pack_text(text, filename)

    # -- setup -------------------------------------------------------------------------------
    def new_game(self, options: VeOptions, seats: list[str], rng: random.Random) -> VeState:
        return VeState(**self._deal(options, seats, rng))

    def _deal(self, options: VeOptions, seats: list[str], rng: random.Random) -> dict[str, Any]:
        """A new game's set-up: the fields of its state that have no default."""
        if len(seats) != 2:
            raise VeRuleError("Vampire Empire is for exactly two players.")
        self._pack(options.deck_pack)
        host_side = {"vampires": VAMPIRES, "humans": HUMANS}.get(options.host_side)
        if host_side is None:
            host_side = rng.randrange(2)
        by_side = [seats[0], seats[1]] if host_side == VAMPIRES else [seats[1], seats[0]]
        city = list(range(9))
        rng.shuffle(city)
        tokens = list(range(9))
        rng.shuffle(tokens)  # the bag
        decks = [list(range(0, 40)), list(range(40, 80))]
        for deck in decks:
            rng.shuffle(deck)
        hands = [deck[:HAND_SIZE] for deck in decks]
        decks = [deck[HAND_SIZE:] for deck in decks]
        return {
            "options": options,
            "seats": by_side,
            "vampires": sorted(tokens[:3]),
            "known_humans": sorted(tokens[3:5]),
            "castle": city[:CASTLE_SIZE],
            "city": city[CASTLE_SIZE:],
            "decks": decks,
            "hands": hands,
            "cellars": [[], []],
            "moats": [[], []],
        }

    # -- queries -----------------------------------------------------------------------------
    def side_of(self, state: VeState, seat: str) -> int | None:
        return state.seats.index(seat) if seat in state.seats else None

    def acting_side(self, state: VeState) -> int | None:
        if state.phase == "over":
            return None
        if state.phase == "combat" and state.combat is not None:
            combat = state.combat
            return combat.side if combat.step == "attack" else 1 - combat.side
        return state.active

    def current_seats(self, state: VeState) -> list[str]:
        side = self.acting_side(state)
        return [] if side is None else [state.seats[side]]

    def is_over(self, state: VeState) -> bool:
        return state.phase == "over"

    def result(self, state: VeState) -> GameResult | None:
        if state.phase != "over" or state.winner is None:
            return None
        summary = {
            "all_humans_dead": "All six humans are dead: the vampire player wins.",
            "all_vampires_dead": "All three vampires are dead: the human player wins.",
            "castle_taken": "Three revealed vampires hold the castle: the vampire player wins.",
        }.get(state.ending or "")
        if summary is None:
            h, v = state.scores.get("humans", 0), state.scores.get("vampires", 0)
            verdict = {"tie": "a tie", "humans": "the human player wins"}.get(
                state.winner, "the vampire player wins"
            )
            summary = f"Out of cards: humans {h} points, vampires {v} points, {verdict}."
        return GameResult(
            winner=state.winner,
            scores=dict(state.scores),
            summary=summary,
            details={"ending": state.ending, "turns": state.turn},
        )

    def alive_humans(self, state: VeState) -> list[int]:
        return [c for c in range(9) if c not in state.vampires and c not in state.dead]

    def alive_vampires(self, state: VeState) -> list[int]:
        return [c for c in state.vampires if c not in state.dead]

    def is_out(self, state: VeState, side: int) -> bool:
        """Out of cards (the option says what that means)."""
        to_draw = len(state.decks[side]) + (
            len(state.cellars[side]) if state.options.reshuffle_cellar else 0
        )
        if state.options.out_of_cards == "deck":
            return to_draw == 0
        return to_draw == 0 and not state.hands[side]

    # -- combat rules --------------------------------------------------------------------------
    def fight_bits(
        self, state: VeState, side: int, attacker: int, target: int, attacking: int
    ) -> int:
        """What makes a card of ``side`` count in a fight of ``attacker`` on ``target`` begun
        by ``attacking`` (``Card.bits``): its own character's profession; holy water for the
        human player against a revealed vampire (in defence if the option allows); vampire
        cards for a revealed vampire of the vampire player."""
        mine = attacker if side == attacking else target
        wanted = CHARACTER_BITS[mine]
        if side == HUMANS:
            other = target if side == attacking else attacker
            if other in state.revealed and (
                side == attacking or state.options.holy_water_in_defence
            ):
                wanted |= HOLY_WATER_BIT
        elif mine in state.revealed:
            wanted |= VAMPIRE_BIT
        return wanted

    def totals(self, state: VeState, cards: Sequence[Any], combat: Combat) -> tuple[int, int]:
        attack = state.attack_markers[combat.attacker]
        for card in combat.attack_cards:
            attack += cards[card].value
        defence = state.defence_markers[combat.target]
        for card in combat.defence_cards:
            defence += cards[card].value
        return attack, defence

    def attackers(self, state: VeState, side: int) -> list[int]:
        if side == HUMANS:
            return [c for c in state.castle if c not in state.revealed]
        revealed = [c for c in state.castle if c in state.revealed]
        return revealed or [c for c in state.castle if c not in state.revealed]

    def targets(self, state: VeState, attacker: int) -> list[int]:
        """Whom ``attacker`` may attack (``_fights`` restates it)."""
        if attacker in state.revealed and not state.options.vampire_attacks_vampire:
            revealed = state.revealed
            return [c for c in state.castle if c != attacker and c not in revealed]
        return [c for c in state.castle if c != attacker]

    def can_start(
        self,
        state: VeState,
        cards: Cards,
        side: int,
        attacker: int,
        target: int,
        extra: list[int] | None = None,
    ) -> bool:
        """A fight may begin only if the attack can beat the target's starting defence
        (``extra``: cards that join the attack besides the hand's)."""
        wanted = self.fight_bits(state, side, attacker, target, side)
        best = sum(cards[c].value for c in state.hands[side] if cards[c].bits & wanted)
        best += sum(cards[c].value for c in extra or [])
        return best + state.attack_markers[attacker] > state.defence_markers[target]

    # -- legal actions ---------------------------------------------------------------------------
    def legal_actions(self, state: VeState, seat: str) -> list[Action]:
        side = self.side_of(state, seat)
        if side is None or side != self.acting_side(state):
            return []
        return [move.action() for move in self.moves(state, side)]

    def legal_action(self, state: VeState, seat: str, action_id: str) -> Action | None:
        # Only the clicked move becomes an Action, and apply of it on this state need not
        # work out the legal moves again.
        side = self.side_of(state, seat)
        if side is None or side != self.acting_side(state):
            return None
        for move in self.moves(state, side):
            if move.id == action_id:
                return self._chosen.remember(state, seat, move.action())
        return None

    def moves(self, state: VeState, side: int) -> list[Move]:
        """The legal actions of ``side``, the acting side, as plain moves (the AI weighs these;
        ``legal_actions`` shows them)."""
        return self._moves(state, self.plain_cards(state), side)

    def _moves(self, state: VeState, cards: Cards, side: int) -> list[Move]:
        phase = state.phase
        if phase == "combat":
            return self._combat_moves(state, cards, side)
        if phase == "discard":
            return [DRAW, *[cards[c].discard for c in distinct(state.hands[side], cards)]]
        if phase == "choose":
            pile = {"deck": state.decks, "cellar": state.cellars, "moat": state.moats}[
                state.choosing or "deck"
            ][side]
            return [*[cards[c].take for c in distinct(pile, cards)], TAKE_NOTHING]
        if phase == "pay":
            return self._pay_moves(state, cards, side)
        if phase == "holy_attack":
            return self._holy_attack_moves(state, cards)
        return self._turn_moves(state, cards, side)

    def _holy_attack_moves(self, state: VeState, cards: Cards) -> list[Move]:
        target = state.holy_target
        assert target is not None
        usable = self._holy_card(state, cards)
        moves = []
        for attacker in self.attackers(state, HUMANS):
            if attacker == target:
                continue
            if self.can_start(state, cards, HUMANS, attacker, target, [usable]):
                label = (
                    f"{the(attacker).capitalize()} attacks {the(target)} "
                    f"(holy water {cards[usable].value} counts)"
                )
                moves.append(Move(f"a:{attacker}", label, "combat", info=attacker))
        return [*moves, NO_ATTACK]

    @staticmethod
    def _holy_card(state: VeState, cards: Cards) -> int:
        """The holy water card that may join the attack: the lower one (one of two equal)."""
        return min(state.holy_pair, key=lambda c: (cards[c].value, c))

    def _combat_moves(self, state: VeState, cards: Cards, side: int) -> list[Move]:
        combat = state.combat
        assert combat is not None
        attack, defence = self.totals(state, cards, combat)
        attacking = side == combat.side
        counting = self.fight_bits(state, side, combat.attacker, combat.target, combat.side)
        mine = combat.attacker if attacking else combat.target
        wanted = "attack" if attacking else "defence"
        moves = []
        last = None  # the id of the last card offered: its copies come next (``distinct``)
        for number in sorted(state.hands[side]):
            card = cards[number]
            if card.bits & counting:  # (a support card never counts)
                if card.id != last:
                    moves.append(card.play)
                    last = card.id
            elif card.effect is not None and card.id != last:
                if card.timing == "combat" and card.marker == wanted:
                    if self._marker_fits(state, mine, wanted):
                        moves.append(card.markers[mine])
                        last = card.id
                # (elif: a cancel card has no combat timing or marker; cards.py's checks hold)
                elif card.cancel is not None and not attacking and self._may_cancel(state, combat):
                    moves.append(card.cancel)
                    last = card.id
        if attacking:
            if combat.round == 2 or attack > combat.start_defence:
                moves.append(done(True, attack))
        else:
            moves.append(done(False, defence))
        return moves

    def _fight_offer(self, state: VeState, cards: Cards, side: int) -> Offer:
        """What ``_combat_moves`` would offer the AI (``ai.read_offer``), found in one pass
        over the hand without making the moves: an AI-only game's hot path, which restates
        which cards ``_combat_moves`` offers (a test holds the two together)."""
        combat = state.combat
        assert combat is not None
        attacking = side == combat.side
        counting = self.fight_bits(state, side, combat.attacker, combat.target, combat.side)
        mine = combat.attacker if attacking else combat.target
        wanted = "attack" if attacking else "defence"
        strongest = marker = cancel = None
        strongest_value = -1
        adds = 0
        last = None  # the id of the last card weighed: its copies come next (``distinct``)
        for number in sorted(state.hands[side]):
            card = cards[number]
            if card.bits & counting:  # (a support card never counts)
                if card.id != last:
                    last = card.id
                    value = card.value
                    adds += value
                    if value > strongest_value:  # the first of the strongest
                        strongest, strongest_value = card.play, value
            elif card.effect is not None:
                if card.timing == "combat" and card.marker == wanted:
                    if marker is None and self._marker_fits(state, mine, wanted):
                        marker = card.markers[mine]
                elif card.cancel is not None and cancel is None and not attacking:
                    if self._may_cancel(state, combat):
                        cancel = card.cancel
        return strongest, adds, marker, cancel

    @staticmethod
    def _may_cancel(state: VeState, combat: Combat) -> bool:
        if state.options.cancel_timing == "any_defence":
            return True
        return combat.round == 1 and not combat.defence_cards

    def _marker_fits(self, state: VeState, character: int, kind: str) -> bool:
        if state.marker_supply <= 0:
            return False
        if state.options.markers_stack:
            return True
        held = state.attack_markers if kind == "attack" else state.defence_markers
        return held[character] == 0

    def _turn_moves(self, state: VeState, cards: Cards, side: int) -> list[Move]:
        return [move for group in self._turn_groups(state, cards, side).values() for move in group]

    def _turn_groups(self, state: VeState, cards: Cards, side: int) -> dict[str, list[Move]]:
        """A turn's moves by kind, in the order they are shown: reveals and the support cards
        played before the action, then the action: support cards, hiding, holy water and
        fights, or passing when there is none (the AI weighs them by kind)."""
        reveals: list[Move] = []
        free: list[Move] = []  # support cards played before the action
        supports: list[Move] = []  # support cards played as the action
        hand = state.hands[side]
        options = state.options
        limit = 1 if options.reveals_per_turn == "one" else 3
        if side == VAMPIRES and state.reveals < limit:
            places = state.castle + (state.city if options.reveal_in_city else [])
            for character in sorted(places):
                if character in state.vampires and character not in state.revealed:
                    reveals.append(REVEAL[character])
        last = None  # the id of the last support card seen: its copies come next (``distinct``)
        for number in sorted(hand):
            card = cards[number]
            if card.effect is None or card.id == last:
                continue
            last = card.id
            timing = card.timing or "action"  # no timing given: it is the action
            if card.effect == "marker" and timing in ("turn", "action"):
                kind = card.marker or "attack"
                for character in state.castle:
                    if self._marker_fits(state, character, kind):
                        (free if timing == "turn" else supports).append(card.markers[character])
            if card.take_from is not None and timing == "action":
                pile = {"deck": state.decks, "cellar": state.cellars, "moat": state.moats}
                if pile[card.pile or "deck"][side]:
                    supports.append(card.take_from)
        hides: list[Move] = []
        if side == VAMPIRES and self._can_pay(hand, cards, "h"):
            if state.city or options.hide_with_empty_city == "allow":
                hides = [HIDE[character] for character in state.castle]
        waters: list[Move] = []
        if side == HUMANS and self._can_pay(hand, cards, "w"):
            dead, revealed, castle = state.dead, state.revealed, state.castle
            waters = [
                water[character in castle]
                for character, water in enumerate(HOLY_WATER)
                if character not in dead and character not in revealed
            ]
        fights = self._fights(state, cards, side)
        groups: dict[str, list[Move]] = {}
        for name, group in (
            ("reveal", reveals),
            ("support", free + supports),
            ("hide", hides),
            ("holy_water", waters),
            ("combat", fights),
        ):
            if group:
                groups[name] = group
        if not (supports or hides or waters or fights):  # no action
            if options.no_legal_action == "discard" and hand:
                groups["pass"] = [cards[c].give_up for c in distinct(hand, cards)]
            else:
                groups["pass"] = [PASS]
        return groups

    def _fights(self, state: VeState, cards: Cards, side: int) -> list[Move]:
        """The fights ``side`` may begin: ``can_start`` of each attacker and each of its
        ``targets``. This runs at every turn, so it restates both (a test holds it to them):
        what makes a card count (``fight_bits`` of the attacking side) is worked out once per
        attacker, and the hand's best attack summed once for each set of bits."""
        fights = []
        best: dict[int, int] = {}
        hand = [cards[c] for c in state.hands[side]]
        castle, revealed = state.castle, state.revealed
        attack_markers, defence_markers = state.attack_markers, state.defence_markers
        humans = side == HUMANS
        no_vampire_targets = not state.options.vampire_attacks_vampire
        for attacker in self.attackers(state, side):
            bits = CHARACTER_BITS[attacker]  # its own profession
            shown = attacker in revealed
            if shown and not humans:
                bits |= VAMPIRE_BIT  # vampire cards, for a revealed vampire
            strength = attack_markers[attacker]
            row = FIGHT[attacker]
            for target in castle:
                if target == attacker:
                    continue
                target_shown = target in revealed
                if target_shown and shown and no_vampire_targets:
                    continue
                # holy water, for the human player against a revealed vampire
                wanted = bits | HOLY_WATER_BIT if humans and target_shown else bits
                found = best.get(wanted)
                if found is None:
                    found = 0
                    for card in hand:
                        if card.bits & wanted:
                            found += card.value
                    best[wanted] = found
                if found + strength > defence_markers[target]:
                    fights.append(row[target])
        return fights

    @staticmethod
    def _payments(hand: list[int], cards: Cards, wanted: str, count: int) -> list[list[int]]:
        """Every different way to pay ``count`` cards of a kind (copies of a card are the same
        way), the cheapest first: single-purpose cards before dual ones, low values first."""
        fitting = sorted(
            (c for c in hand if getattr(cards[c], wanted)),
            key=lambda c: (bool(cards[c].professions), cards[c].value, c),
        )
        ways: dict[tuple[str, ...], list[int]] = {}
        for combo in itertools.combinations(fitting, count):
            ways.setdefault(tuple(sorted(cards[c].id for c in combo)), list(combo))
        return list(ways.values())

    def _pay_moves(self, state: VeState, cards: Cards, side: int) -> list[Move]:
        wanted, count = PAYMENTS[(state.paying or "w")[0]]
        moves = [
            Move(
                "y:" + ".".join(map(str, way)),
                "Pay with " + ", ".join(f"{cards[c].name} ({cards[c].value})" for c in way),
                "pay",
                True,
            )
            for way in self._payments(state.hands[side], cards, wanted, count)
        ]
        return [*moves, BACK]

    @staticmethod
    def _can_pay(hand: list[int], cards: Cards, kind: str) -> bool:
        wanted, count = PAYMENTS[kind]
        bit = PAYMENT_BITS[wanted]
        for card in hand:
            if cards[card].bits & bit:
                count -= 1
                if not count:
                    return True
        return False

    # -- apply ---------------------------------------------------------------------------------
    def apply(
        self, state: VeState, seat: str, action: Action | str, rng: random.Random
    ) -> tuple[VeState, list[GameEvent]]:
        action_id = action.id if isinstance(action, Action) else action
        if state.phase == "over":
            raise VeRuleError("This game is over; start a new one with `/game new`.")
        side = self.side_of(state, seat)
        if side is None or side != self.acting_side(state):
            raise IllegalAction("It is not your turn; wait for the other player.")
        chosen = self._chosen.was_chosen(state, seat, action)
        if not chosen and action_id not in {m.id for m in self.moves(state, side)}:
            raise IllegalAction("That move is not allowed now; choose one of the offered actions.")
        move = _Move(fork(state), self.plain_cards(state), rng)
        self._do(move, side, action_id)
        return move.s, move.events

    def _do(self, move: _Move, side: int, action_id: str) -> None:
        """A legal action of ``side`` and what follows from it, on ``move``'s state."""
        kind, _, rest = action_id.partition(":")
        self._handlers[kind](move, side, rest)
        if move.changed:  # (the end depends only on what sets it)
            move.changed = False
            self._check_end(move)

    # each handler edits move.s
    def _draw(self, move: _Move, side: int, _: str) -> None:
        drawn = move.draw_to(side, HAND_SIZE)
        if move.loud:
            move.say(f"The {move.name(side)} draws {plural(drawn, 'card')}.")
            hand = ", ".join(move.cards[c].name for c in move.s.hands[side]) or "nothing"
            move.whisper(side, f"Your hand: {hand}.")
        move.s.phase = "act"

    def _discard(self, move: _Move, side: int, rest: str) -> None:
        card = int(rest)
        move.take_from_hand(side, card)
        pile = move.s.cellars if move.s.options.discards_to == "cellar" else move.s.moats
        pile[side].append(card)
        if move.loud:
            move.say(f"The {move.name(side)} discards a card.")
            move.whisper(side, f"You discard {move.cards[card].name}.")

    def _reveal(self, move: _Move, side: int, rest: str) -> None:
        move.s.reveals += 1
        move.reveal(int(rest), "is unmasked by the vampire player")

    def _marker(self, move: _Move, side: int, rest: str) -> None:
        card_text, _, character_text = rest.partition(":")
        card, character = int(card_text), int(character_text)
        definition = move.cards[card]
        move.take_from_hand(side, card)
        move.to_played(side, [card])
        s = move.s
        s.marker_supply -= 1
        held = s.attack_markers if definition.marker == "attack" else s.defence_markers
        held[character] += 1
        move.say(
            f"The {move.name(side)} plays {definition.name}: +1 {definition.marker} "
            f"marker on {the(character)}."
        )
        timing = definition.timing or "action"
        if s.phase == "act" and timing == "action":
            self._end_turn(move)

    def _take_start(self, move: _Move, side: int, rest: str) -> None:
        card = int(rest)
        definition = move.cards[card]
        move.take_from_hand(side, card)
        move.to_played(side, [card])
        move.s.choosing = definition.pile
        move.s.phase = "choose"
        move.say(
            f"The {move.name(side)} plays {definition.name} and looks through their "
            f"{definition.pile}."
        )

    def _take(self, move: _Move, side: int, rest: str) -> None:
        s = move.s
        piles = {"deck": s.decks, "cellar": s.cellars, "moat": s.moats}
        pile = piles[s.choosing or "deck"][side]
        if rest != "none":
            card = int(rest)
            pile.remove(card)
            s.hands[side].append(card)
            move.whisper(side, f"You take {move.cards[card].name} into your hand.")
        move.rng.shuffle(pile)  # the rest of the pile is shuffled
        taken = "no" if rest == "none" else "one"
        move.say(f"The {move.name(side)} takes {taken} card and shuffles the {s.choosing}.")
        s.choosing = None
        s.phase = "act"
        self._end_turn(move)

    def _hide(self, move: _Move, side: int, rest: str) -> None:
        self._choose_payment(move, side, f"h:{rest}")

    def _holy_water(self, move: _Move, side: int, rest: str) -> None:
        self._choose_payment(move, side, f"w:{rest}")

    def _choose_payment(self, move: _Move, side: int, paying: str) -> None:
        """With one way to pay, pay it at once; otherwise the player picks the cards first."""
        ways = self._payments(move.s.hands[side], move.cards, *PAYMENTS[paying[0]])
        if len(ways) == 1:
            self._paid(move, side, paying, ways[0])
            return
        move.s.phase, move.s.paying = "pay", paying
        move.whisper(side, "Choose which cards pay for it.")

    def _pay(self, move: _Move, side: int, rest: str) -> None:
        paying = move.s.paying or ""
        move.s.phase, move.s.paying = "act", None
        self._paid(move, side, paying, [int(c) for c in rest.split(".")])

    def _back(self, move: _Move, side: int, _: str) -> None:
        move.s.phase, move.s.paying = "act", None

    def _paid(self, move: _Move, side: int, paying: str, payment: list[int]) -> None:
        kind, _, target = paying.partition(":")
        if kind == "h":
            self._hide_with(move, side, int(target), payment)
        else:
            self._holy_water_with(move, side, int(target), payment)

    def _hide_with(self, move: _Move, side: int, character: int, payment: list[int]) -> None:
        s = move.s
        for card in payment:
            move.take_from_hand(side, card)
        move.to_played(side, payment)
        s.played = payment
        s.castle.remove(character)
        move.clear_markers(character)
        s.city.append(character)
        names = ", ".join(move.cards[c].name for c in payment)
        move.say(
            f"The vampire player pays {names} and hides {the(character)} at the bottom of the city."
        )
        move.refill()
        self._end_turn(move)

    def _holy_water_with(self, move: _Move, side: int, character: int, payment: list[int]) -> None:
        s = move.s
        for card in payment:
            move.take_from_hand(side, card)
        s.played = payment
        names = ", ".join(move.cards[c].name for c in payment)
        is_vampire = character in s.vampires
        s.tested[str(character)] = is_vampire
        answer = "it is a vampire" if is_vampire else "it is not a vampire"
        move.say(
            f"The human player pours {names} on {the(character)}; the vampire player answers "
            f"truthfully: {answer}."
        )
        if not is_vampire:
            move.to_played(side, payment)
            self._end_turn(move)
            return
        move.reveal(character, "burns under the holy water")
        if character in s.castle:
            s.holy_pair = payment
            s.holy_target = character
            s.phase = "holy_attack"
        else:
            move.to_played(side, payment)
            self._end_turn(move)

    def _holy_attack(self, move: _Move, side: int, rest: str) -> None:
        s = move.s
        target = s.holy_target
        assert target is not None
        usable = self._holy_card(s, move.cards)
        spent = [c for c in s.holy_pair if c != usable]
        s.holy_pair, s.holy_target = [], None
        if rest == "none":
            move.to_played(side, [usable, *spent])
            move.say("The human player does not attack.")
            self._end_turn(move)
            return
        move.to_played(side, spent)
        self._begin_combat(move, side, int(rest), target, [usable])

    def _combat_start(self, move: _Move, side: int, rest: str) -> None:
        attacker_text, _, target_text = rest.partition(":")
        self._begin_combat(move, side, int(attacker_text), int(target_text), [])

    def _begin_combat(
        self, move: _Move, side: int, attacker: int, target: int, holy: list[int]
    ) -> None:
        s = move.s
        s.attacks[attacker] += 1
        s.combat = move.fight(attacker, target, side, s.defence_markers[target], list(holy))
        s.phase = "combat"
        if move.loud:
            move.say(f"The {move.name(side)}: {the(attacker)} attacks {the(target)}.")

    def _combat_card(self, move: _Move, side: int, rest: str) -> None:
        s = move.s
        combat = s.combat
        assert combat is not None
        card = int(rest)
        move.take_from_hand(side, card)
        (combat.attack_cards if side == combat.side else combat.defence_cards).append(card)
        if move.loud:
            attack, defence = self.totals(s, move.cards, combat)
            definition = move.cards[card]
            move.say(
                f"The {move.name(side)} adds {definition.name} ({definition.value}): attack "
                f"{attack}, defence {defence}."
            )

    def _cancel(self, move: _Move, side: int, rest: str) -> None:
        card = int(rest)
        move.take_from_hand(side, card)
        move.to_played(side, [card])
        move.say(f"The {move.name(side)} plays {move.cards[card].name}: the combat ends.")
        self._close_combat(move)

    def _combat_done(self, move: _Move, side: int, _: str) -> None:
        s = move.s
        combat = s.combat
        assert combat is not None
        if side == combat.side:
            combat.step = "defend"
            return
        attack, defence = self.totals(s, move.cards, combat)
        loud = move.loud
        if attack > defence:
            if loud:
                move.say(f"Round {combat.round}: attack {attack} beats defence {defence}.")
            move.kill(combat.target)
            self._close_combat(move)
        elif combat.round == 1:
            if loud:
                move.say(f"Round 1: attack {attack}, defence {defence}; the fight goes on.")
            combat.round = 2
            combat.step = "attack"
        else:
            if loud:
                move.say(f"Round 2: defence {defence} holds against attack {attack}; both live.")
            self._close_combat(move)

    def _close_combat(self, move: _Move) -> None:
        s = move.s
        combat = s.combat
        assert combat is not None
        move.to_played(combat.side, combat.attack_cards)
        move.to_played(1 - combat.side, combat.defence_cards)
        s.played = combat.attack_cards + combat.defence_cards
        s.combat = None
        s.phase = "act"
        self._end_turn(move)

    def _pass(self, move: _Move, side: int, rest: str) -> None:
        if rest:
            card = int(rest)
            move.take_from_hand(side, card)
            pile = move.s.cellars if move.s.options.discards_to == "cellar" else move.s.moats
            pile[side].append(card)
            move.whisper(side, f"You discard {move.cards[card].name}.")
            move.say(f"The {move.name(side)} can take no action and discards a card.")
        else:
            move.say(f"The {move.name(side)} can take no action and passes.")
        self._end_turn(move)

    # -- turns and the end -------------------------------------------------------------------
    def _end_turn(self, move: _Move) -> None:
        s = move.s
        if self._check_end(move):
            return
        s.reveals = 0
        other = 1 - s.active
        other_out = self.is_out(s, other)
        both_out = other_out and self.is_out(s, 1 - other)
        if both_out or s.turn >= s.options.turn_limit:
            self._score(move, "out_of_cards" if both_out else "turn_limit")
            return
        if not other_out:
            s.active = other
        s.turn += 1
        s.phase = "discard"
        if move.loud:
            move.say(f"Turn {s.turn}: the {move.name(s.active)}'s turn.")

    def _check_end(self, move: _Move) -> bool:
        s = move.s
        if s.phase == "over":
            return True
        dead, vampires = s.dead, s.vampires
        if len(dead) < min(len(vampires), 9 - len(vampires)) and len(s.revealed) < 3:
            return False  # too few dead or revealed for any end
        dead_vampires = sum(1 for c in vampires if c in dead) if dead else 0
        if len(dead) - dead_vampires == 9 - len(vampires):  # no human alive
            self._finish(move, "vampires", "all_humans_dead")
        elif dead_vampires == len(vampires):
            self._finish(move, "humans", "all_vampires_dead")
        elif len(s.revealed) >= 3 and sum(1 for c in s.castle if c in s.revealed) >= 3:
            self._finish(move, "vampires", "castle_taken")
        return s.phase == "over"

    def _score(self, move: _Move, ending: str) -> None:
        s = move.s
        humans = len(self.alive_humans(s))
        vampires = 2 * len(self.alive_vampires(s))
        winner = "tie" if humans == vampires else ("humans" if humans > vampires else "vampires")
        self._finish(move, winner, ending, {"humans": humans, "vampires": vampires})

    def _finish(
        self, move: _Move, winner: str, ending: str, scores: dict[str, int] | None = None
    ) -> None:
        s = move.s
        s.phase = "over"
        s.winner = winner
        s.ending = ending
        s.combat = None
        s.scores = scores or {
            "humans": len(self.alive_humans(s)),
            "vampires": 2 * len(self.alive_vampires(s)),
        }
        hidden = [the(c) for c in s.vampires if c not in s.dead and c not in s.revealed]
        if hidden:
            move.say("The game is over. The vampires were also: " + ", ".join(hidden) + ".")

    # -- views ---------------------------------------------------------------------------------
    def public_view(self, state: VeState) -> dict[str, Any]:
        return views.build(self, state, self.cards(state), None)

    def private_view(self, state: VeState, seat: str) -> dict[str, Any]:
        return views.build(self, state, self.cards(state), self.side_of(state, seat))

    def private_view_from(
        self, state: VeState, seat: str, public: dict[str, Any] | None
    ) -> dict[str, Any]:
        cards = self.cards(state)
        return views.build(self, state, cards, self.side_of(state, seat), public)

    def seat_views(
        self, state: VeState, seat: str, with_actions: bool = True
    ) -> tuple[Callable[[], dict[str, Any]], list[Action], dict[str, Any]]:
        # The hand shows only the seat's own entries (its side, secrets and cards): the public
        # view is built when the board is drawn (coalesced), not at every move.
        actions = self.legal_actions(state, seat) if with_actions else []
        hand = views.private_part(self, state, self.cards(state), self.side_of(state, seat))
        return partial(self.public_view, state), actions, hand

    # -- AI --------------------------------------------------------------------------------------
    def choose_action(self, state: VeState, seat: str, rng: random.Random) -> Action:
        side = self.side_of(state, seat)
        if side is None or side != self.acting_side(state):
            raise ValueError("no legal action for this seat")
        # Only what the seat may know: its private view and its legal moves (which follow
        # from that view alone).
        cards = self.plain_cards(state)
        view = views.SeatView(self, state, cards, side)
        combat = state.combat
        if state.phase == "combat" and combat is not None and done_at_once(view):
            # ``choose``'s answer whatever the moves (done is offered: see ``done_at_once``)
            attacking = side == combat.side
            move = done(attacking, view.attack if attacking else view.defence)
        else:
            move = choose(view, self.moves(state, side), rng)
        return self._chosen.remember(state, seat, move.action())

    def play_ai_game(
        self, options: VeOptions, players: int, rng: random.Random
    ) -> tuple[VeState, int]:
        """One AI-only game as ``bot.games.simulate.play_one`` plays it through
        ``choose_action`` and ``apply`` (the same RNG calls, so the same game), on one plain
        state changed in place: nobody keeps the states in between, so no move forks one, no
        event is kept and no Action is made. Returns (final state, actions)."""
        state, steps = self.play_ai_summary(options, players, rng)
        return model(state), steps

    def play_ai_summary(
        self, options: VeOptions, players: int, rng: random.Random
    ) -> tuple[PlainState, int]:
        """``play_ai_game`` with the final state left plain (for ``simulate``, which reads it
        through ``result`` and the fields the model and the plain state share)."""
        working = new_plain(self._deal(options, [f"ai{i}" for i in range(players)], rng))
        state = cast(VeState, working)  # (the rules read and write it as the model)
        cards = self.plain_cards(state)
        move = _QuietMove(working, cards, rng)
        seat_views = [views.SeatView(self, state, cards, side) for side in (VAMPIRES, HUMANS)]
        for step in range(MAX_STEPS):
            side = self.acting_side(state)
            if side is None:  # over
                return working, step
            view = seat_views[side]
            phase = state.phase
            if phase == "discard":  # ``choose``'s: it reads only the hand (the state's own),
                action_id = discard(view, rng).id  # so the view needs no update, no moves
            else:
                view.update(self, state)
                if phase == "act":  # (``choose``'s, from the moves by kind)
                    action_id = turn_choice(view, self._turn_groups(state, cards, side), rng).id
                elif phase != "combat":
                    action_id = choose(view, self._moves(state, cards, side), rng).id
                elif done_at_once(view):  # (most steps are a fight's: ``choose``'s, directly)
                    action_id = "done"  # (no need to make the moves: done is among them)
                else:
                    chosen = fight_choice(view, self._fight_offer(state, cards, side))
                    action_id = "done" if chosen is None else chosen.id
            self._do(move, side, action_id)
        raise RuntimeError(f"a simulated {self.name} game did not end in {MAX_STEPS} actions")

    def simulate(self, options: VeOptions, players: int, games: int, seed: int) -> dict[str, Any]:
        from bot.games.vampire_empire.simulate import simulate

        return simulate(self, options, games, seed)


# What hiding ("h") and holy water ("w") cost: how many cards of which kind.
PAYMENTS = {"h": ("vampire", 3), "w": ("holy_water", 2)}
PAYMENT_BITS = {"vampire": VAMPIRE_BIT, "holy_water": HOLY_WATER_BIT}  # (a card's ``bits``)


_INSTANCES: dict[str, tuple[CardDef, ...]] = {}


def _instances(pack_key: str) -> tuple[CardDef, ...]:
    found = _INSTANCES.get(pack_key)
    if found is None:
        packs = load_packs()
        if pack_key not in packs:
            raise VeRuleError(f"There is no deck pack {pack_key!r}.")
        found = _INSTANCES[pack_key] = packs[pack_key].instances()
    return found


ENGINE = VampireEmpireEngine()
