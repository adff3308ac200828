"""A forget of a proper noun reaches the memories that write it in the other alphabet (issue
37, domain.forget_topic.names_it_in_another_script); common words and a lone capital at a
sentence start do not cross."""

from __future__ import annotations

import pytest

from selfimprint.domain.forget_topic import about_topic

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("topic", "memory"),
    [
        ("Казань", "I spent a weekend in Kazan and loved the Kremlin there."),
        ("Kazan", "Были в Казани на выходных."),
        ("Tesla", "Я продаю свою Теслу, потому что устал от сервиса."),
        ("Berlin", "Я мечтаю переехать в Берлин через пару лет."),
        ("Пелевин", "I'm writing an essay on Pelevin's novel for my book club."),
        ("Аня", "Anya called me last night."),
    ],
)
def test_a_proper_noun_is_found_in_the_other_script(topic: str, memory: str) -> None:
    assert about_topic(memory, topic)


@pytest.mark.parametrize(
    ("topic", "memory"),
    [
        ("Казань", "My cousin lives in Samara and keeps inviting me over."),
        ("Турция", "We went to Greece last summer."),  # a translation, not a spelling
        ("сон", "My son got into college."),  # a common word, lowercase in the memory
        ("сон", "Son got into college today."),  # capitalised only to open the sentence
        ("Tesla", "Я езжу на работу на старом «Фольксвагене»."),
        ("Kazan Kremlin", "Были в Казани на выходных."),  # every word of the topic must be there
    ],
)
def test_other_words_do_not_cross(topic: str, memory: str) -> None:
    assert not about_topic(memory, topic)
