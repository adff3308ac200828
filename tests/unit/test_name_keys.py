"""A person's name however it is written (domain.structured.name_keys, issue 34): one key for
the Cyrillic and Latin spellings of a name and its declined forms, another for another name."""

from __future__ import annotations

import pytest

from selfimprint.domain.structured.name_keys import name_key, name_keys, names_in

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "spellings",
    [
        ("Аня", "Anya", "Ania", "Anja"),
        ("Юлия", "Yulia", "Julia", "Yuliya"),
        ("Дмитрий", "Dmitry", "Dmitri", "Dmitriy"),
        ("Алексей", "Alexei", "Aleksey", "Alexey"),
        ("Серёжа", "Сережа", "Seryozha", "Serezha"),
        ("Елена", "Elena", "Yelena"),
        ("Ксения", "Ksenia", "Kseniya", "Xenia"),
        ("Татьяна", "Tatiana", "Tatyana"),
        ("Михаил", "Mikhail"),
        ("Женя", "Zhenya", "Zhenia"),
        ("Евгений", "Evgeny", "Yevgeny", "Evgeniy"),
    ],
)
def test_the_spellings_of_one_name_share_a_key(spellings: tuple[str, ...]) -> None:
    assert len({name_key(s) for s in spellings}) == 1, [name_key(s) for s in spellings]


@pytest.mark.parametrize(
    ("a", "b"),
    [("Аня", "Anna"), ("Дима", "Dina"), ("Маша", "Misha"), ("Оля", "Olga"), ("Jake", "Jack")],
)
def test_other_names_keep_other_keys(a: str, b: str) -> None:
    assert name_key(a) != name_key(b)


def test_a_declined_name_has_its_dictionary_forms_key() -> None:
    assert name_key("Аня") in name_keys("Аню")
    assert name_key("Дима") in name_keys("Димой")
    assert name_key("Аня") not in name_keys("Анну")


def test_a_person_memorys_words_in_any_case() -> None:
    assert name_key("Anya") in names_in("видела мою сестру аню вчера")
    assert name_key("Anna") not in names_in("Joanna is a colleague.")
