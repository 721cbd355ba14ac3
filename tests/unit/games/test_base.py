import pytest
from pydantic import ValidationError

from bot.errors import RuleError
from bot.games.base import Action, GameEvent, get_engine


def test_action_label_limit() -> None:
    # A long card name from a user pack is clipped to the button limit, never a traceback.
    long = Action(id="x", label="Use Stunt: " + "a" * 200, kind="k")
    assert len(long.label) == 80 and long.label.endswith("…")
    with pytest.raises(ValidationError):
        Action(id="x" * 41, label="too long an id", kind="k")
    assert Action(id="pass", label="Pass", kind="pass").id == "pass"


def test_private_event_visibility() -> None:
    event = GameEvent(text="You draw Forzare", public=False, audience=["42"])
    assert event.visible_to("42")
    assert not event.visible_to("7")
    assert not event.visible_to(None)


def test_unknown_engine_is_a_rule_error() -> None:
    with pytest.raises(RuleError, match="no game called"):
        get_engine("chess")


def test_options_schema_is_built_once_per_engine() -> None:
    engine = get_engine("dfccg")
    schema = engine.options_schema()
    assert engine.options_schema() is schema
    assert schema == engine.options_model.model_json_schema()


def test_card_game_lobby_offers_its_packs_books_and_set_up_rules() -> None:
    from bot.services.game_info import option_fields, option_labels

    engine = get_engine("dfccg")
    fields = option_fields(engine)
    library = engine.library  # type: ignore[attr-defined]
    assert fields["book"] == [*library.books, "side-jobs", "campaign"]
    # Players choose their decks at the table (start: choose), so four menus fit the lobby.
    assert list(fields) == ["difficulty", "start", "showdown_consent", "book"]
    labels = option_labels(engine)
    assert labels["book"]["side-jobs"] == "Side Jobs (random)"
    assert labels["start"]["choose"] == "Each player chooses a deck"
    assert set(labels["characters"]) == set(library.characters)
