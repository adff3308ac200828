"""Asides (issue 32, domain.asides): a memory that asks the other side something and says
nothing of the user fades on the aside curve; anything else keeps its type's."""

from __future__ import annotations

import pytest

from selfimprint.domain.asides import aside_coefficient, is_aside


@pytest.mark.parametrize(
    "text",
    [
        "Wow, sounds amazing! What was the event like?",
        "Melanie: Those posters are great! Where did you get them?",
        "Cool! What did it look like? Those colours are great!",
        "А как прошёл концерт?",
        "Круто! Где ты это купила?",
    ],
)
def test_a_question_that_says_nothing_of_the_user_is_an_aside(text: str) -> None:
    assert is_aside(text)


@pytest.mark.parametrize(
    "text",
    [
        "I loved it! Have you been?",  # asks, and says something of the speaker
        "That sounds awesome! I just got back from Paris. Any plans for the summer?",
        "What should we do this weekend?",  # a plan shared with the other side
        "Can you remind me what I said about my sister?",
        "I’m not sure, what do you think?",  # a typographic apostrophe
        "Я была там в прошлом году! А ты?",
        "Что нам взять с собой в поход?",
        "The weather has been grey for a week now.",  # says nothing of the user, asks nothing
    ],
)
def test_a_question_about_the_user_or_a_statement_is_not(text: str) -> None:
    assert not is_aside(text)


def test_the_aside_curve_only_ever_makes_decay_faster() -> None:
    aside = "Wow! What was it like?"
    assert aside_coefficient(0.92, aside, 0.5) == 0.5
    # A type already faster than the aside curve keeps its own.
    assert aside_coefficient(0.4, aside, 0.5) == 0.4
    assert aside_coefficient(0.92, "I loved it! Have you been?", 0.5) == 0.92
