"""Which memories a "forget this topic" reaches (domain.forget_topic, issue 37)."""

from __future__ import annotations

from selfimprint.domain.forget_topic import about_topic


def test_the_topic_text_anywhere_in_the_content() -> None:
    assert about_topic("I play CHESS at the club.", "chess")
    assert not about_topic("I play go at the club.", "chess")


def test_a_word_form_of_the_topic_is_the_topic() -> None:
    assert about_topic("Ненавижу свою работу.", "работа")
    assert about_topic("Two jobs at once is a lot.", "job")


def test_every_word_of_a_longer_topic_must_be_there() -> None:
    assert about_topic("I quit the jobs at Google.", "job at Google")
    assert not about_topic("The job hunt goes on.", "job at Google")


def test_a_topic_of_stop_words_only_matches_its_text() -> None:
    assert not about_topic("Something else.", "the")
