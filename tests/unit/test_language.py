"""Language detection without a model (spec §6: context follows the latest message)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from selfimprint.domain.language import UNDETERMINED, detect_language

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I had an interview at Google yesterday and I think it went well.", "en"),
        ("Вчера было собеседование, кажется, всё прошло хорошо.", "ru"),
        ("Вчора була співбесіда, здається, все пройшло добре.", "uk"),
        ("Я люблю каву і чай, але сьогодні дуже втомився.", "uk"),
        ("Ich habe morgen ein Vorstellungsgespräch und bin nervös.", "de"),
        ("Je suis très fatigué, j'ai trop travaillé cette semaine.", "fr"),
        ("Mañana tengo una entrevista con mi jefe y estoy nervioso.", "es"),
        ("Oggi sono molto stanco, ho lavorato tutto il giorno.", "it"),
        ("Chcę iść do kina, ale nie mam czasu.", "pl"),
        ("Σήμερα είμαι πολύ κουρασμένος.", "el"),
        ("今日は仕事がとても忙しかった。", "ja"),
        ("我今天工作很忙。", "zh"),
        ("오늘은 일이 너무 바빴어요.", "ko"),
        ("היום הייתי עייף מאוד.", "he"),
        ("كنت متعبا جدا اليوم في العمل", "ar"),
    ],
)
def test_detects_the_language_of_a_sentence(text: str, expected: str) -> None:
    assert detect_language(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Latin brand names and code inside Russian text do not make it English.
        ("Купил iPhone 15 Pro Max, теперь жалею", "ru"),
        ("Завтра встреча в Zoom с командой DataInc", "ru"),
        ("Посмотри https://example.com/some/long/english/path и скажи", "ru"),
        ("Сьогодні їду до Києва на Google I/O", "uk"),
        # An English sentence with one Russian word stays English.
        ("My grandmother always called me солнышко when I was a kid", "en"),
    ],
)
def test_mixed_text_follows_the_language_of_the_sentence(text: str, expected: str) -> None:
    assert detect_language(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Привет", "ru"),  # Cyrillic without a clue: Russian, the default of the script
        ("Привіт", "uk"),  # the і gives Ukrainian away even in one word
        ("ok", "en"),
        ("Grüße", "de"),
        ("¿Qué?", "es"),
        ("", UNDETERMINED),
        ("   ", UNDETERMINED),
        ("😀👍 123 4.5", UNDETERMINED),
        ("user@example.com", UNDETERMINED),
    ],
)
def test_short_texts_get_a_sensible_answer(text: str, expected: str) -> None:
    assert detect_language(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "a" and "as" are Portuguese function words too; English needs them to win the tie.
        ("I work as a software engineer.", "en"),
        ("User uses a standing desk.", "en"),
        ("write a haiku about autumn", "en"),
        ("Ela foi a praia com as amigas", "pt"),
        # Russian function words the neighbours share ("до", "да", "много", "от"): a tie goes to
        # Russian, and Bulgarian or Serbian still win on their own words.
        ("обещала папе починить ноутбук и до сих пор не сделала", "ru"),
        ("да, давай", "ru"),
        ("теперь снимаю квартиру отдельно от родителей, наконец-то", "ru"),
        ("Пользовательница смотрит много сериалов про врачей.", "ru"),
        # "те" ("those") is Russian as much as Bulgarian.
        ("В среду ревизия закончилась, и те по завхозу", "ru"),
        ("Аз съм много уморен", "bg"),
        ("Те са много уморени", "bg"),
        ("Ја сам рекао да је то добро", "sr"),
        ("Я їду до Києва", "uk"),
    ],
)
def test_words_shared_with_a_neighbour_do_not_flip_the_language(text: str, expected: str) -> None:
    assert detect_language(text) == expected


@given(st.text(max_size=200))
def test_always_a_two_letter_code_or_und(text: str) -> None:
    code = detect_language(text)
    assert code == UNDETERMINED or (len(code) == 2 and code.isascii() and code.islower())
    assert detect_language(text) == code


@given(st.lists(st.sampled_from(["вчера", "работа", "было", "хорошо", "очень"]), min_size=1))
def test_russian_words_plus_any_brand_stay_russian(words: list[str]) -> None:
    assert detect_language(" ".join([*words, "iPhone"])) == "ru"
