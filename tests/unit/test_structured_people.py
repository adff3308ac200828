"""Names wherever they stand and in any case, possessives, places and everyday relation words
(issue 34): what `find_people` reads out of one message, both sides of each rule."""

from __future__ import annotations

import pytest

from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.people import find_people, gazetteer

pytestmark = pytest.mark.unit


def _people(text: str, language: str = "en") -> dict[str, str | None]:
    return {m.name: m.relation for m in find_people(text, cues(language))}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("jake bailed on me again last night", {"Jake": None}),  # lowercase
        ("GOT THE JOB!!!! BERNIE CALLED IT", {"Bernie": None}),  # shouted
        ("Callum is the messiest human alive", {"Callum": None}),  # opens the message
        ("so annoyed, callums girlfriend has moved in", {"Callum": None}),  # possessive, no '
        ("the guy Ollie from Hannah's birthday added me", {"Ollie": None, "Hannah": None}),
        ("my mate leah says London rent is criminal", {"Leah": "friend"}),
        ("Keisha from work is doing a masters", {"Keisha": "colleague"}),
        ("Hannah from uni is on placement", {"Hannah": "classmate"}),
        ("Earl next door is 84 and still mows his lawn", {"Earl": "neighbour"}),
        ("Tash from upstairs came over with a lemon tree", {"Tash": "neighbour"}),
        ("my therapist dr feld says I use work to avoid things", {"Feld": "therapist"}),
        ("anjali is the sweetest housemate ever", {"Anjali": "roommate"}),
        # A capitalised word right after a listed first name is the surname ...
        ("Barb Keller runs the pantry now", {"Barb Keller": None}),
        ("Dr Helen Fraser owns the practice", {"Helen Fraser": "doctor"}),
        # ... but not a day, a month, "I", a place noun, or a word after a full stop.
        ("saw Linda Monday at church", {"Linda": None}),
        ("Emma I think is mad at me", {"Emma": None}),
        ("lunch with Jake Street was closed", {"Jake": None}),
        ("Jake. Keller called though", {"Jake": None, "Keller": None}),
    ],
)
def test_english_names_wherever_they_stand(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "will do, thanks",  # a name that is an everyday word, lowercase
        "Grace is what I need right now",  # ... or opening a sentence
        "Myrtle Beach is off this year",  # a first name before a place noun
        "I take the tram down Sydney Road",
        "4 pints at Lowe's after work",  # a shop, not a person
        "Adaeze runs Ward 9",  # a first name before a number is a place or a time
        "broke dry jan last night",
        "my jeans ripped on the bus",  # a plural, not "Jean's"
    ],
)
def test_words_places_and_shops_are_not_people(text: str) -> None:
    assert "Will" not in _people(text)
    assert not set(_people(text)) - {"Adaeze"}


def test_an_everyday_word_name_counts_capitalised_inside_a_sentence() -> None:
    assert _people("had lunch with Grace and Mark today") == {"Grace": None, "Mark": None}
    assert gazetteer().name_of("grace", inside=False) is None
    assert gazetteer().name_of("Grace", inside=True) == "Grace"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("сегодня с мишкой и олей ездили на озеро", {"Оля": None}),  # мишка: a teddy bear too
        ("ВЗЯЛИ!!! ОЛЯ ДОВОЛЬНАЯ", {"Оля": None}),
        ("Олина мама опять к нам на неделю", {"Оля": None}),  # a possessive adjective
        ("Серёгина Танька меня терпеть не может", {"Серёга": None, "Танька": None}),
        ("Катя сеструха младшая, в Тюмени работает", {"Катя": "sister"}),
        ("Рустам с работы говорит что набирают", {"Рустам": "colleague"}),
        ("созвон с ольгой петровной перенесли", {"Ольга Петровна": None}),
        ("Мой терапевт Кравченко говорит сдать анализы", {"Кравченко": "doctor"}),
        # Lowercase: the name readings weigh half or more, in whatever case the name stands.
        ("ира с работы позвала в кино", {"Ира": "colleague"}),  # or an "ир"'s genitive
        ("позвонил алине, она не ответила", {"Алина": None}),  # Алина's, not Алин's
        ("кристине отправила макет в пятницу", {"Кристина": None}),  # not the indeclinable
        ("вчера даник помог с переездом", {"Даник": None}),  # only "Даника"'s plural known
        ("жанель прислала фотки", {"Жанель": None}),
    ],
)
def test_russian_names_lowercase_shouted_and_possessive(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    "text",
    [
        "в квартире какая то странная тишина",  # -ина, but a noun, not Тиша's
        "у нее сесия и она злая",  # an unknown word is not guessed a name
        "вера не позволяет ему пить",  # a name that is more often a word
        "на крестинах было шумно",  # a name's plural in a case names take only as plurals
        "в астану лечу в пятницу",  # a place reading
        "препод валит всех на экзамене",  # a verb reading
        "весь август на даче",  # the month, far commoner than the name
        "ну молодец че",  # two letters
    ],
)
def test_russian_words_are_not_people(text: str) -> None:
    assert _people(text, "ru") == {}


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("me and Jake broke up again. for good", "en", {"Jake": "ex"}),
        ("Всё, мы с Толей расстались. Ну и пусть", "ru", {"Толя": "ex"}),
        ("Jake broke his leg skiing", "en", {"Jake": None}),  # no break-up without "up"
        ("Valeria's officially my girlfriend now", "en", {"Valeria": "girlfriend"}),
        ("тимур теперь мой парень", "ru", {"Тимур": "boyfriend"}),
        ("Сестрёнка моя Люда живёт в Бобруйске", "ru", {"Люда": "sister"}),
        ("lessons with an instructor called Pete", "en", {"Pete": "teacher"}),
        ("went for a drink with jake 2 days ago", "en", {"Jake": None}),
        ("Серега звонил вчера", "ru", {"Серега": None}),  # as written, not "Серёга"
        ("Серёга звонил вчера", "ru", {"Серёга": None}),
        # A friend-word qualified by where they met is that group; unqualified, a friend.
        ("drinks at my work mate Priya's leaving do", "en", {"Priya": "colleague"}),
        ("my uni mate Tom is getting married", "en", {"Tom": "classmate"}),
        ("my running buddy Tom is getting married", "en", {"Tom": "friend"}),
        ("my mate Tom is getting married", "en", {"Tom": "friend"}),
        # A neighbour "по комнате" shares the room; "по даче", the garden plot.
        ("поссорилась с Викой, моей соседкой по комнате", "ru", {"Вика": "roommate"}),
        ("встретила Вику, мою соседку по даче", "ru", {"Вика": "neighbour"}),
        # After a name and patronymic, the apposition still says who they are.
        ("Анна Сергеевна, наша начальница, ушла в отпуск", "ru", {"Анна Сергеевна": "boss"}),
        ("Анна Сергеевна ушла в отпуск", "ru", {"Анна Сергеевна": None}),
        # Where from, between the relation word and the name.
        ("Соседка по даче Нина Степановна дала рассаду", "ru", {"Нина Степановна": "neighbour"}),
        ("Сосед по комнате Вася опять храпит", "ru", {"Вася": "roommate"}),
        # A relation word in the sentence before says nothing of the name after it.
        ("that's my neighbour. Anna thinks so too", "en", {"Anna": None}),
        ("my chem teacher Ms. Alvarez got me into science", "en", {"Alvarez": "teacher"}),
        ("это мой сосед. Аня тоже так думает", "ru", {"Аня": None}),
    ],
)
def test_relations_in_everyday_words(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


def test_a_speaker_label_is_not_a_person_the_message_names() -> None:
    assert _people("Caroline: hey Mel! I went to a support group yesterday") == {}
    assert _people("Caroline: I went hiking with Jake yesterday") == {"Jake": None}
    assert _people("Оля: привет, как дела?", "ru") == {}
    assert _people("that's so great, Caroline!") == {}  # whom the message speaks to
    assert _people("I met Caroline, she was lovely") == {"Caroline": None}


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # The user's own name in a self-introduction is not someone they tell of ...
        ("Hi, name is Walt and I fix radios", "en", {}),
        ("Я Олеся, мне 31", "ru", {}),
        # ... but a possessive after "I'm", or a name in another case after "я", is.
        ("I'm Jake's sister", "en", {"Jake": None}),
        ("я Оле позвонил вчера", "ru", {"Оля": None}),
        # A pet's name after the animal is not a person; the people beside it are.
        ("I got a beagle named Buster, Linda picked him", "en", {"Linda": None}),
        ("у нас кот Бублик и пёс Рекс", "ru", {}),
        ("Everybody says it is fine", "en", {}),  # an indefinite pronoun opening a sentence
        # Shouted Russian words are read as lowercase ones: emphasis is no surname.
        ("мадина берет меня НА ПОСТОЯНКУ", "ru", {"Мадина": None}),
        ("КАМИЛА готовит плов", "ru", {"Камила": None}),
        # Possessives of diminutives the dictionary lacks are read by their ending.
        ("Викин Миша приехал в субботу", "ru", {"Вика": None, "Миша": None}),
        ("На Ленкину свадьбу идем", "ru", {"Ленка": None}),
        ("монтирую мадинин выпуск", "ru", {"Мадина": None}),
    ],
)
def test_own_names_pets_shouts_and_possessives(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Said of them apart from the name: the one person the message names.
        ("Kev got fired today. kinda sad, he was my smoke buddy", "en", {"Kev": "friend"}),
        ("Claire runs with a club. shes my girlfriend now??", "en", {"Claire": "girlfriend"}),
        ("Лариса тоже пенсионерка, коллега моя новая", "ru", {"Лариса": "colleague"}),
        ("Валя звонила. она моя двоюродная сестра", "ru", {"Валя": "sister"}),
        # ... not with two people unplaced, nor two relations said, nor an adjacent name.
        ("Kev and Sam came over, he is my cousin", "en", {"Kev": None, "Sam": None}),
        ("Kev came over. she's my sister and he's my cousin", "en", {"Kev": None}),
        ("Kev came over. my sister Anna too", "en", {"Kev": None, "Anna": "sister"}),
        ("Лариса пришла, работа моя подождёт", "ru", {"Лариса": None}),
        # A couple told with the name: together is a boyfriend or a girlfriend by the name's
        # gender or the message's pronouns, a partner when neither says; done is an ex.
        ("мы с Толей теперь вместе", "ru", {"Толя": "boyfriend"}),
        ("мы с Машей теперь вместе", "ru", {"Маша": "girlfriend"}),
        ("официально: встречаюсь с Гошей", "ru", {"Гоша": "boyfriend"}),
        ("me and Jake are back together!!", "en", {"Jake": "partner"}),
        ("me and Jake are back together, he said sorry", "en", {"Jake": "boyfriend"}),
        ("Sam and I are dating", "en", {"Sam": "partner"}),
        ("I've started dating Ana, she is lovely", "en", {"Ana": "girlfriend"}),
        ("the girl I'm seeing, Kirra, reckons I talk too much", "en", {"Kirra": "girlfriend"}),
        ("I'm seeing Tom tomorrow for lunch", "en", {"Tom": None}),
        ("me and Jake are done. properly done this time", "en", {"Jake": "ex"}),
        ("Jake and Sam are together at the bar", "en", {"Jake": None, "Sam": None}),
        ("me and Jake are done with the move", "en", {"Jake": None}),
        # A break-up in the first person with no name by it: the one person named.
        ("Оля всё сказала. разошлись мы", "ru", {"Оля": "ex"}),
        ("Dani texted. we broke up last night", "en", {"Dani": "ex"}),
        ("Dani texted. her and Sam broke up", "en", {"Dani": None, "Sam": None}),
    ],
)
def test_relations_said_apart_from_the_name(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # A number in the next sentence does not make the name a place ("Ward 9" does).
        ("a lonely league without my buddy gary. 35 years.", "en", {"Gary": "friend"}),
        ("she moved to Ward 9 last week", "en", {}),
        # "has been" links the name to the relation word after it, as "is" does.
        ("jess has been my best mate since first year", "en", {"Jess": "friend"}),
        ("jess has my charger", "en", {"Jess": None}),
        # The Russian "у меня" between the word and the name.
        ("Муж у меня Антон, инженер-проектировщик.", "ru", {"Антон": "husband"}),
        ("Муж Антон, инженер-проектировщик.", "ru", {"Антон": "husband"}),
        # A separation or a divorce with the user makes the partner an ex ...
        ("Marcus and I are separating.", "en", {"Marcus": "ex"}),
        ("Carol and I called it quits.", "en", {"Carol": "ex"}),
        ("Мы с Толей развелись.", "ru", {"Толя": "ex"}),
        # ... and doing something else together does not.
        ("Marcus and I are painting the fence.", "en", {"Marcus": None}),
        # Everyday words for a doctor or a client; a colleague by the department.
        ("Appt with my heart doc Mehta tmrw at 2.", "en", {"Mehta": "doctor"}),
        ("Педиатр наш, Анна Сергеевна, лучшая в городе.", "ru", {"Анна Сергеевна": "doctor"}),
        ("Мой заказчик Ержан платит сразу.", "ru", {"Ержан": "client"}),
        ("Доченька Соня родилась позавчера!", "ru", {"Соня": "daughter"}),
        ("Азамат из соседнего отдела ворует мой йогурт.", "ru", {"Азамат": "colleague"}),
        # A name opening the message is one when the group says who ("с работы").
        ("Ира с работы — дизайнер от бога.", "ru", {"Ира": "colleague"}),
    ],
)
def test_more_everyday_relations(text: str, language: str, expected: dict[str, str]) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # A relation word without "my", anywhere in the message, for the one person named ...
        ("начальница в Пекарне, Ира, отпустила меня пораньше", "ru", {"Ира": "boss"}),
        ("quinn let me leave early, best boss ever", "en", {"Quinn": "boss"}),
        ("Зоя принесла суп. подруга года", "ru", {"Зоя": "friend"}),
        # ... not a kin word or a doctor, said of someone unnamed ...
        ("Kit came round, mum was thrilled", "en", {"Kit": None}),
        ("Ганна звонила, а ортопед запретил бег", "ru", {"Ганна": None}),
        # ... nor another's relative, anyone's, or each other.
        ("Pip came with her sister", "en", {"Pip": None}),
        ("Лиза пришла к своей подружке", "ru", {"Лиза": None}),
        ("Tom is hosting a client dinner", "en", {"Tom": None}),
        ("с Викой мы друг друга понимаем", "ru", {"Вика": None}),
        ("Фарида работает с клиентом", "ru", {"Фарида": None}),
        ("Lorne calls everyone 'pal'", "en", {"Lorne": None}),
        ("Назар, его отец бывший военный", "ru", {"Назар": None}),
    ],
)
def test_a_relation_word_anywhere_in_the_message(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: a relation the user owns anywhere in the message, for the one person named.
        ("TASHA just got sponsored lmao my climbing buddy is FAMOUS", "en", {"Tasha": "friend"}),
        ("Bec said I'd regret it. annoyingly wise, my sister", "en", {"Bec": "sister"}),
        # ... never for one of two: whose it is is not said.
        ("Tom and Anna came over, my buddy is great", "en", {"Tom": None, "Anna": None}),
        ("Лёша прилетает в пятницу! мой друг детства", "ru", {"Лёша": "friend"}),
        ("Лёша и Катя прилетают! мой друг детства", "ru", {"Лёша": None, "Катя": None}),
        # A relation word in brackets after the name; other words in brackets say nothing.
        ("jess (roomie) told me she is moving out", "en", {"Jess": "roommate"}),
        ("jess (again!) told me she is moving out", "en", {"Jess": None}),
        # Three words between the possessive and the relation word.
        (
            "Donna, my aqua aerobics instructor, can still do a handstand",
            "en",
            {"Donna": "teacher"},
        ),
    ],
)
def test_a_relation_said_apart_or_in_brackets(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: who someone is, by the group or the place the user knows them from ...
        ("the guy Shorty from the day crew is quitting", "en", {"Shorty": "colleague"}),
        ("Ruth who used to work with me came to book club", "en", {"Ruth": "colleague"}),
        ("Никита из моей команды сам закрыл задачу", "ru", {"Никита": "colleague"}),
        ("Bumi from pharmacy school is in town", "en", {"Bumi": "classmate"}),
        ("Mrs Dalgleish downstairs is selling up", "en", {"Dalgleish": "neighbour"}),
        ("Вадим тренирует меня уже четыре года", "ru", {"Вадим": "teacher"}),
        # ... not a bare team (a sports team as much as a job), nor a place word that names
        # no one.
        ("Marcus from the team is a firefighter", "en", {"Marcus": None}),
        ("Lady across the hall just nods", "en", {}),
        # Everyday words for relations.
        ("Тёма мой напарник по смене", "ru", {"Тёма": "colleague"}),
        ("Оксана это наша управляющая", "ru", {"Оксана": "manager"}),
        ("Элеонора Сергеевна, мой педагог по вокалу", "ru", {"Элеонора Сергеевна": "teacher"}),
        ("к бабе Нине поеду через неделю", "ru", {"Нина": "grandmother"}),
        ("полина моя одногрупница", "ru", {"Полина": "classmate"}),
        # A name no dictionary holds is one when a relation word stands by it; a Latin word
        # there is a company's.
        ("Драган, мой руководитель, сказал", "ru", {"Драган": "manager"}),
        ("Драган, мой кот, опять орёт", "ru", {}),
        # Words read with the word before them: a cousin, a work partner, an elder's title
        # after the word that says who she is ...
        ("двоюродный брат Вовка зовёт на свадьбу", "ru", {"Вовка": "cousin"}),
        ("брат Вовка зовёт на свадьбу", "ru", {"Вовка": "brother"}),
        ("gonna ask my work partner Nikki", "en", {"Nikki": "colleague"}),
        ("my partner Nikki and I bought a house", "en", {"Nikki": "partner"}),
        ("соседка тётя Галя знает всё про всех", "ru", {"Галя": "neighbour"}),
        ("тётя Галя приехала", "ru", {"Галя": "aunt"}),
        # ... "снова" between the name and the relation, a couple done in Russian ...
        ("короче Настя снова моя девушка", "ru", {"Настя": "girlfriend"}),
        ("мы с Игорем всё. насовсем.", "ru", {"Игорь": "ex"}),
        ("мы с Игорем всё обсудили", "ru", {"Игорь": None}),
        # ... dialect and Spanish kin words, and an accented name.
        ("me mam Pat rang", "en", {"Pat": "mother"}),
        ("me and my other half martin have been looking at houses", "en", {"Martin": "partner"}),
        ("my prima Jackie is a nurse", "en", {"Jackie": "cousin"}),
        ("I've been seeing this guy Tomás for three weeks", "en", {"Tomás": "boyfriend"}),
        ("I've been seeing this guy at work for three weeks", "en", {}),
        # A name written without its ё is the name, not another's oblique case.
        ("репетитор Алена, по понедельникам", "ru", {"Алена": "teacher"}),
        ("она маркетолог из Sary Bank, мой заказчик", "ru", {}),
    ],
)
def test_relations_by_group_place_and_new_words(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # The relation vocabulary covers everyday, regional and family words ...
        ("Greg my oga at work never says no to corporate", "en", {"Greg": "boss"}),
        ("Emeka my padi from church is an accountant", "en", {"Emeka": "friend"}),
        ("Macca's my offsider this swing", "en", {"Macca": "colleague"}),
        ("my fiancée Abby starts at the bank on Monday", "en", {"Abby": "partner"}),
        ("my stepdaughter Lily turns nine", "en", {"Lily": "daughter"}),
        ("батя мой Серёга опять на рыбалке", "ru", {"Серёга": "father"}),
        ("бригадир Саня орёт с утра", "ru", {"Саня": "manager"}),
        ("научрук Ирина Павловна вернула главу", "ru", {"Ирина Павловна": "teacher"}),
        # ... without a multi-word entry lending its last word a second meaning ("my buddy" is
        # a friend) or "cuz" (because).
        ("4 beers at my buddy Omar's bbq", "en", {"Omar": "friend"}),
        ("lunch got moved cuz marisol has to work", "en", {"Marisol": None}),
        # Someone from a department is a colleague; from a country, nobody in particular.
        ("Bronwyn from reception made a cake", "en", {"Bronwyn": "colleague"}),
        ("Tom from accounting quit", "en", {"Tom": "colleague"}),
        ("Raj from Italy is visiting", "en", {"Raj": None}),
        ("Вика из тестирования нашла баг", "ru", {"Вика": "colleague"}),
        # A contraction typed without its apostrophe is no name.
        ("Shes my supervisor now", "en", {}),
        ("Hes a foreman now at Miami Valley Electric", "en", {}),
    ],
)
def test_the_relation_vocabulary(text: str, language: str, expected: dict[str, str | None]) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A dictionary name opening the message is one with no verb after it; a word that is
        # more often an everyday word is not.
        ("Даша в субботу не приедет, перенесла на 18-е", {"Даша": None}),
        ("Вера в лучшее помогает", {}),
        # A man called by his patronymic alone is named by it; after a first name it is part
        # of the name.
        ("надо до пятницы сдать шефу Михалычу график", {"Михалыч": "boss"}),
        ("Петрович, сосед по площадке, полку помог повесить", {"Петрович": "neighbour"}),
        ("ненавижу август. ПАЛЫЧ уже всех задолбал", {"Палыч": None}),
        ("Андрей Палыч мужик старой закалки", {"Андрей Палыч": None}),
        # A preposition picks the case; a name opening a sentence is typed in its dictionary
        # form, one inside it may be another name's oblique case.
        ("самара отменяется из-за амира, у него температура", {"Амир": None}),
        ("Камила однокурсница моя по медколледжу", {"Камила": "classmate"}),
        ("встретил в метро одноклассника Вадима", {"Вадим": "classmate"}),
    ],
)
def test_russian_names_by_case_and_patronymic(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # A former spouse is an ex; a cousin said after the kin word; "the wife" is the user's.
        ("more than I missed my first wife Sherry when she left", "en", {"Sherry": "ex"}),
        ("my wife Donna does the taxes", "en", {"Donna": "wife"}),
        ("Лена, сестра двоюродная из Череповца, звонила", "ru", {"Лена": "cousin"}),
        ("Лена, сестра моя, звонила", "ru", {"Лена": "sister"}),
        ("The wife is the brains here, Donna does the taxes", "en", {"Donna": "wife"}),
        ("Tom saw the wife of his boss", "en", {"Tom": None}),
        ("Priya from litigation organised the leaving do", "en", {"Priya": "colleague"}),
        # A first name is one person: no plural reading of another name ("Колян", not Коляна).
        ("Колян без меня поедет, гад", "ru", {"Колян": None}),
    ],
)
def test_former_spouses_cousins_and_colloquial_names(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: a relation word owned by someone else says who they are to that one, not to
        # the user, and no relation said elsewhere in the message is theirs ...
        ("her brother Tom came too", "en", {"Tom": None}),
        ("Niamh's husband Pádraig is a nice man", "en", {"Niamh": None, "Pádraig": None}),
        ("my mum and her sister Joan came", "en", {"Joan": None}),
        ("моя сестра и её муж Олег приехали", "ru", {"Олег": None}),
        ("my sister Anna is here", "en", {"Anna": "sister"}),
        ("моя сестра Лена приехала", "ru", {"Лена": "sister"}),
        # ... the place the user works at, shared with them, makes a colleague ...
        ("Priya from my lab got her paper accepted", "en", {"Priya": "colleague"}),
        ("Orla in the maths department sent me a job ad", "en", {"Orla": "colleague"}),
        ("Тобиас из нашей лаборатории опять опоздал", "ru", {"Тобиас": "colleague"}),
        ("Orla in the garden again", "en", {"Orla": None}),
        # ... so does the user's "our" with a word for someone at work, in Russian ...
        ("наш трудовик Сергей золотой мужик", "ru", {"Сергей": "colleague"}),
        ("Леха, сварщик наш, опять не вышел на смену", "ru", {"Леха": "colleague"}),
        ("наш Миша пошёл в школу", "ru", {"Миша": None}),
        ("наш кот Барсик спит", "ru", {}),
        # ... a class or section shared makes a classmate ...
        ("leah from my psych class asked if i wanna study", "en", {"Leah": "classmate"}),
        ("Yaw and I were in the same class at Legon", "en", {"Yaw": "classmate"}),
        ("Tom and I were in the same boat", "en", {"Tom": None}),
        # ... and a couple finished, or an engagement called off, makes an ex.
        ("me and Conor are finished", "en", {"Conor": "ex"}),
        ("Abena and I called off the engagement tonight", "en", {"Abena": "ex"}),
        ("me and Conor finished the puzzle", "en", {"Conor": None}),
    ],
)
def test_relations_owned_by_others_places_of_work_and_endings(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: a parent's and a partner's everyday words, only after "my" ...
        ("my boy Travis works nights at the refinery", "en", {"Travis": "son"}),
        ("Graham, my boy, rang from London", "en", {"Graham": "son"}),
        ("Ellie's my little girl, she's 6", "en", {"Ellie": "daughter"}),
        ("my fella Cian teaches geography", "en", {"Cian": "boyfriend"}),
        ("Dr Mehta is a nice young fella", "en", {"Mehta": "doctor"}),
        ("the boy Tom from next door", "en", {"Tom": "neighbour"}),
        ("my girl friend Anna came", "en", {"Anna": "friend"}),
        # ... a supervisor is the boss (as the persona writers read it) ...
        ("Tommo, my supervisor, yells heaps", "en", {"Tommo": "boss"}),
        # ... a job someone is given is no relation to the user ...
        ("my boy Mike got promoted to team lead. Jess says he's 10 feet tall", "en",
         {"Mike": "son", "Jess": None}),
        ("Jess is the best team lead ever", "en", {"Jess": "manager"}),
        # ... a couple said in more words ...
        ("ok its official, me and Tom are going out. he asked me properly", "en",
         {"Tom": "boyfriend"}),
        ("so Kirra and i are officially a thing. she asked me", "en", {"Kirra": "girlfriend"}),
        ("me and Tom are going out for drinks tonight", "en", {"Tom": None}),
        ("С Галиной Аркадьевной мы больше не встречаемся.", "ru", {"Галина Аркадьевна": "ex"}),
        ("по сути мы с Катей расходимся", "ru", {"Катя": "ex"}),
        # ... and the user's own child or spouse, said with a bare preposition.
        ("Андрей отпуск взять не может, а без сына я не хочу", "ru", {"Андрей": "son"}),
        ("Аня с мужем переезжает в Ереван, нам грустно", "ru", {"Аня": None}),
        ("Андрей придёт с клиентом, я не хочу", "ru", {"Андрей": None}),
    ],
)  # fmt: skip
def test_endearments_supervisors_roles_couples_and_households(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: a workmate by the user's "our" on either side of the name ...
        ("лёха наш повар с горячего, 24 года", "ru", {"Лёха": "colleague"}),
        ("Дима наш новый кондитер, переехал из Новосибирска", "ru", {"Дима": "colleague"}),
        ("повар наш лёха порезался", "ru", {"Лёха": "colleague"}),
        ("лёха наш сегодня молодец", "ru", {"Лёха": None}),
        # ... another's relative is no relation to the user: "у X мама", "девушка Тимура",
        # "иркин муж", "настина мама тетя лена" ...
        ("у насти мама с давлением в больницу попала", "ru", {"Настя": None}),
        ("Алина, девушка Тимура, мне поначалу не понравилась", "ru",
         {"Алина": None, "Тимур": None}),
        ("иркин муж Денис хороший парень оказался", "ru", {"Денис": None}),
        ("настина мама тетя лена со мной здоровается", "ru", {"Настя": None, "Лена": None}),
        ("на днюхе у вадика, бригадира моего, покурил", "ru", {"Вадик": "manager"}),
        ("Нана, коллега из процедурки, учит меня", "ru", {"Нана": "colleague"}),
        # ... and words for kin from the writers' other languages, and "my lady", "my cuz".
        ("babcia Halina is 84", "en", {"Halina": "grandmother"}),
        ("with ciocia Ewa on the balcony", "en", {"Ewa": "aunt"}),
        ("my kuzyn Bartek from Gdynia", "en", {"Bartek": "cousin"}),
        ("my lady Keisha made oxtails", "en", {"Keisha": "partner"}),
        ("staying on my cuz Tay's couch", "en", {"Tay": "cousin"}),
        ("lunch got moved cuz Marisol has to work", "en", {"Marisol": None}),
    ],
)  # fmt: skip
def test_workmates_others_relatives_and_kin_words(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a lowercase name the dictionary reads as a word, or does not hold, said to be
        # someone by the relation word right beside it ...
        ("бабуля валя у меня легенда", {"Валя": "grandmother"}),
        ("моя двоюродная сестра катя приедет помогать", {"Катя": "cousin"}),
        ("сегодня с дружбаном коляном ходили на лёд", {"Колян": "friend"}),
        ("ирка моя подруга ещё со школы", {"Ирка": "friend"}),
        ("жека мой препод по барабанам", {"Жека": "teacher"}),
        ("вован кореш со школы зовет на шашлыки", {"Вован": "friend"}),
        # ... but a word whose case disagrees with the relation word, a verb's ending, a relation
        # word itself or another's possessive is no one.
        ("мама позвнила вчера", {}),
        ("позвнила моя мама вчера", {}),
        ("сестра пила чай", {}),
        ("он к бывшей жене вернулся", {}),
        ("иркин муж Денис хороший парень", {"Денис": None}),
    ],
)  # fmt: skip
def test_lowercase_russian_names_beside_a_relation_word(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


def test_a_german_title_before_a_lowercase_surname() -> None:
    assert _people("my german teacher frau becker is strict") == {"Becker": "teacher"}
    assert _people("my german teacher is strict") == {}


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: "my lad", "my old man", "my dawg", "my ma" ...
        ("my lad Ollie says he's devastated", "en", {"Ollie": "son"}),
        ("the lad Ollie says he's devastated", "en", {"Ollie": None}),
        ("my old man Gerry asked if kettle is a crypto", "en", {"Gerry": "father"}),
        ("my man Ally's gone awful quiet", "en", {"Ally": "partner"}),  # as the writers label it
        ("my dawg Trey wants me in vegas", "en", {"Trey": "friend"}),
        ("my ma Linda called 3 times", "en", {"Linda": "mother"}),
        # ... a break-up said before the name, or called off, or "binned off" ...
        ("ended it with Mark on saturday", "en", {"Mark": "ex"}),
        ("had dinner with Mark on saturday", "en", {"Mark": None}),
        ("me and Keisha called it off", "en", {"Keisha": "ex"}),
        ("Tracey's binned me off by text", "en", {"Tracey": "ex"}),
        ("вчера с Лизой созвонились. короче мы всё, растались", "ru", {"Лиза": "ex"}),
        # ... a deputy is a colleague; a neighbour "по хате" shares the flat.
        ("Оксана, зам моя, увольняется", "ru", {"Оксана": "colleague"}),
        ("Тимур оказался норм соседом по хате", "ru", {"Тимур": "roommate"}),
        ("Тимур оказался норм соседом", "ru", {"Тимур": "neighbour"}),
    ],
)  # fmt: skip
def test_lads_old_men_break_ups_and_deputies(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: a name's possessive typed without its apostrophe owns the relation ...
        ("liams uncle Bruce hates everyone", "en", {"Liam": None, "Bruce": None}),
        ("my uncle Bruce hates everyone", "en", {"Bruce": "uncle"}),
        # ... "my psych" is the therapist ...
        ("my psych Rebecca reckons i catastrophise", "en", {"Rebecca": "therapist"}),
        # ... and an unknown capitalised name right before a relation word is someone.
        ("Гиви сосед опять машину на газон бросил", "ru", {"Гиви": "neighbour"}),
        ("хожу вдоль Свислочи, врач велела", "ru", {}),
    ],
)  # fmt: skip
def test_unmarked_possessives_psychs_and_unknown_names_before_a_relation(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: of equally likely readings a name in "-я" ("Вите": Витя, not Вита or Вит) ...
        ("вчера Вите назначили операцию", {"Витя": None}),
        ("позвонила Гале вечером", {"Галя": None}),
        ("позвонила Марине вечером", {"Марина": None}),
        # ... and a woman's surname as typed, unless a preposition makes it a man's genitive.
        ("Доктор Соколова сегодня сказала: связки целы", {"Соколова": "doctor"}),
        ("была у Гусейнова, травматолог мой", {"Гусейнов": "doctor"}),
    ],
)  # fmt: skip
def test_russian_base_forms_of_names_and_womens_surnames(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a possessive the dictionary reads as a surname, before a noun it owns, is the
        # name it is made of; before a verb it is a surname.
        ("Гулин брат Айдар опять в долг просит", {"Гуля": None, "Айдар": None}),
        ("Нарек из Рубенова ресторана пришёл", {"Рубен": None}),
        ("Гулин сказал что придёт", {"Гулин": None}),
    ],
)  # fmt: skip
def test_possessives_read_as_surnames(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: after a preposition of place, a capitalised word no first name spells is a
        # street, a place or a shop; a name stays a person there.
        ("хозяйка на Бекетова подняла аренду", {}),
        ("однушка в Земуне как на фото", {}),
        ("наорала на Катю вчера", {"Катя": None}),
    ],
)  # fmt: skip
def test_places_after_a_preposition_are_not_people(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: an elder's title (тётя, баба) with the word that says who she is before it,
        # where she lives between, or after the name; alone, the title is kin.
        ("соседка снизу тётя Роза опять приходила", {"Роза": "neighbour"}),
        ("баба Шура соседка наша, ей 85", {"Шура": "neighbour"}),
        ("тётя Галя пришла в гости", {"Галя": "aunt"}),
    ],
)  # fmt: skip
def test_elders_titles_beside_the_word_that_says_who(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a couple made official, said early in the clause, whatever follows; who the
        # partner is by "a fella" / "a bf" elsewhere in the message ...
        ("so i have a fella. Rob and i made it official last night.", {"Rob": "boyfriend"}),
        ("update: Theo and i are official 🫣 i have a bf again??", {"Theo": "boyfriend"}),
        # ... but an evening out is none.
        ("me and Tom are going out for drinks with the team later tonight", {"Tom": None}),
    ],
)  # fmt: skip
def test_couples_made_official(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: each one named after "my <relation>s" is one of them; a neighbour named after
        # where they live.
        ("my flatmates are Chloe and Ravi btw", {"Chloe": "roommate", "Ravi": "roommate"}),
        ("my cousins, Jo and Em, are here", {"Jo": "cousin", "Em": "cousin"}),
        ("my friends said Tom was rude", {"Tom": None}),
        ("the old man next door, Mr Douglas, came by", {"Douglas": "neighbour"}),
        ("the old man at work, Mr Douglas, came by", {"Douglas": None}),
    ],
)  # fmt: skip
def test_relations_listed_and_neighbours_named_after(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A doctor by the title alone, as most writers read it ...
        ("Dr Mackay phoned, knee op's booked for March 9th", {"Mackay": "doctor"}),
        ("Dr Mehta put me on a low salt diet", {"Mehta": "doctor"}),
        # ... unless the message says who they are apart from it, or they are another's ...
        ("Dr Helen Fraser owns the practice, she's my boss", {"Helen Fraser": "boss"}),
        ("my boss Dr Hughes is doing my appraisal", {"Hughes": "boss"}),
        ("kayla's advisor dr hoffman got her a slot", {"Kayla": None, "Hoffman": None}),
        ("mama's doctor over there, Dr Balogun, is old school", {"Balogun": None}),
        # ... and in a message about therapy, the therapist.
        ("therapy today was A Lot. dr okafor said i treat rest like work", {"Okafor": "therapist"}),
        ("Mr Rahman is doing it", {"Rahman": None}),  # no other title says who
    ],
)
def test_a_doctor_by_the_title(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # A break-up said in the clause's first words, however long the run-on after it ...
        (
            "kayla and i broke up sunday, she said she needs someone who knows where theyre "
            "going and i didnt have an answer",
            "en",
            {"Kayla": "ex"},
        ),
        ("that's me and EDDIE DONE, told him at the door", "en", {"Eddie": "ex"}),
        # ... not work dumped on the user, an almost, or two others splitting up.
        ("declan dumped a 200 page lease review on me at 6", "en", {"Declan": None}),
        ("a year since Donna and me almost called it quits", "en", {"Donna": None}),
        (
            "mitch and ana have split up and he rang me for advice",
            "en",
            {"Mitch": None, "Ana": None},
        ),
        # A cousin said after the name.
        ("Настя двоюродная из Абакана котов разводит", "ru", {"Настя": "cousin"}),
        # An elder's kin title after the word that says who, with "наша" or "новый" between.
        ("соседка наша тётя валя молоко носит", "ru", {"Валя": "neighbour"}),
        ("сосед наш новый дядя Гена с пятого этажа", "ru", {"Гена": "neighbour"}),
        ("соседка, тётя Валя, молоко носит", "ru", {"Валя": "aunt"}),  # a comma: two things
        ("Shona that I work wi in the kitchen is a gem", "en", {"Shona": "colleague"}),
    ],
)
def test_break_ups_cousins_and_elders_in_run_ons(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


def test_a_cousin_said_with_the_noun_is_read_with_it() -> None:
    # "двоюродный брат мужа": the husband's cousin, not the user's.
    assert _people("Гоги — двоюродный брат мужа Нино", "ru")["Гоги"] is None


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (p57-p60, p69-p72 once in train): the partner who ended it is an ex ...
        ("so thats that. rory ended it. said hes not in a place for a relationship", "en",
         {"Rory": "ex"}),
        ("3 days ago brenda ended it and i still feel like garbage", "en", {"Brenda": "ex"}),
        # ... not one who ended something else, or ended it with another ...
        ("the meeting ran long so Sam ended it early", "en", {"Sam": None}),
        ("Tom ended it with his girlfriend last night", "en", {"Tom": None}),
        # ... a couple that "called it a day" has parted ...
        ("nadia and i called it a day 2 days ago. mutual-ish", "en", {"Nadia": "ex"}),
        # ... "the boyf", and "у нас" between the word that says who and the name.
        ("the boyf rory landed at the end of my shift with flowers", "en", {"Rory": "boyfriend"}),
        ("начальник у нас Игорь Петрович, мужик нормальный", "ru", {"Игорь Петрович": "boss"}),
        # (Where the user works, as "ours", is a colleague: test_colleagues_by_where_...)
        ("у нас в цеху Игорь Петрович новенький", "ru", {"Игорь Петрович": "colleague"}),
        ("у нас в гостях Игорь Петрович", "ru", {"Игорь Петрович": None}),
    ],
)  # fmt: skip
def test_who_ended_it_the_boyf_and_ours(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (p65-p68 once in train): a break-up typed "seperating", or decided on
        # together in Russian ("решили с Дашей расстаться"), makes the partner an ex ...
        ("Gareth and i are seperating, its just not working", "en", {"Gareth": "ex"}),
        ("Gareth and i are celebrating, its our anniversary", "en", {"Gareth": None}),
        ("вчера решили с Дашей расстаться. по-взрослому", "ru", {"Даша": "ex"}),
        ("вчера решили с Дашей съездить в Тбилиси", "ru", {"Даша": None}),
        # ... "back together" said without its verb ...
        ("me and Keisha back together, she said yes", "en", {"Keisha": "girlfriend"}),
        ("me and Keisha back home, she said hi", "en", {"Keisha": None}),
        # ... a child named by birth order, a son or a daughter by the pronouns ...
        ("my youngest Sam says he wants to be a youtuber", "en", {"Sam": "son"}),
        ("my eldest, Amy, got her results today", "en", {"Amy": "daughter"}),
        ("my youngest Sam starts school", "en", {"Sam": None}),
        # ... in Russian, a relation word after a name only in the name's case ("Гене
        # кардиолог велела": Gena's doctor) ...
        ("потому что Гене кардиолог велела сделать ЭКГ", "ru", {"Гена": None}),
        ("Гена начальник гаража опять орал", "ru", {"Гена": "boss"}),
        # ... "парень" and "девушка" before a name are the user's only when owned ...
        ("парень Ираклий из клуба оказался айтишником", "ru", {"Ираклий": None}),
        ("мой парень Ираклий оказался айтишником", "ru", {"Ираклий": "boyfriend"}),
        ("у меня появился парень, Илья", "ru", {"Илья": "boyfriend"}),
        ("Лёша сосед золотой парень. Гену до больницы довёз", "ru",
         {"Лёша": "neighbour", "Гена": None}),
        # ... an elder's title after the word that says who she is, with where between, and
        # a tutor said in the feminine.
        ("соседка новая по площадке баба Шура заходила за солью", "ru", {"Шура": "neighbour"}),
        ("соседка снизу бабушка Манана принесла долму", "ru", {"Манана": "neighbour"}),
        ("моя бабушка Нина приехала", "ru", {"Нина": "grandmother"}),
        ("Нино моя репетиторша преподаёт в ТГУ", "ru", {"Нино": "teacher"}),
        # A capitalised name no list holds, after "the guy" (the "the guy X").
        ("need to ring the guy Leighton who did our boiler", "en", {"Leighton": None}),
        ("need to ring the guy who did our boiler, Leighton Buzzard way", "en", {}),
    ],
)  # fmt: skip
def test_break_ups_in_typos_birth_order_apposition_case_and_a_guy(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (p77-p80 once scored, then train): a Russian relation word before a name is
        # the name's only in its case ("брат Глеба" is Gleb's brother) ...
        ("Костя, брат Глеба, обещал помочь", "ru", {"Костя": None, "Глеб": None}),
        ("у брата Глеба день рождения", "ru", {"Глеб": "brother"}),
        # ... one after a name is another's when "его" or a name in the genitive follows ...
        ("а Нинка бывшая его уже звонила", "ru", {"Нинка": None}),
        ("Нина бывшая жена Валеры заявляет что гараж её", "ru", {"Нина": None, "Валера": None}),
        ("Оля, жена моя, приехала", "ru", {"Оля": "wife"}),
        # ... and covers its word, so no one else takes it ("шефиня наша") ...
        ("Елена Викторовна, шефиня наша, скинула контракт, так как Таня на больничном", "ru",
         {"Елена Викторовна": "boss", "Таня": None}),
        # ... an adjective's feminine ("с благоверной моей Людой"), more doctors' words ...
        ("с благоверной моей Людой поругались", "ru", {"Люда": "wife"}),
        ("мой репродуктолог теперь Ирина Сергеевна", "ru", {"Ирина Сергеевна": "doctor"}),
        # ... "the twins dad" is the children's, "from my new job" a colleague, "done AGAIN"
        # a break-up.
        ("marcus is the twins dad. been on and off since", "en", {"Marcus": None}),
        ("marcus is my dad. been on and off since", "en", {"Marcus": "father"}),
        ("sam from my new job is a right laugh", "en", {"Sam": "colleague"}),
        ("well thats that. me and MARCUS are done AGAIN.", "en", {"Marcus": "ex"}),
    ],
)  # fmt: skip
def test_russian_cases_owners_after_the_name_and_twins_dads(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (the English train writers' misses): the group said after a pair of names is
        # each one's ...
        ("tadhg and kasia from work got me a cake", "en",
         {"Tadhg": "colleague", "Kasia": "colleague"}),
        ("tadhg and kasia got me a cake from work", "en", {"Tadhg": None, "Kasia": None}),
        # ... the user made someone's partner ...
        ("ok so eoin asked me to be his girlfriend and i said yes", "en", {"Eoin": "boyfriend"}),
        ("ok so eoin asked me to be his best man and i said yes", "en", {"Eoin": None}),
        # ... "my lady friend".
        ("my lady friend Brenda says i need a hobby", "en", {"Brenda": "girlfriend"}),
        ("my friend Brenda says i need a hobby", "en", {"Brenda": "friend"}),
        # A race or a club named after a place is no one ("Chester marathon", "Roath Harriers").
        ("theres Chester marathon in october, could i?", "en", {}),
        ("my mate Nia from Roath Harriers says i can", "en", {"Nia": "friend"}),
        ("Chester is my best mate", "en", {"Chester": "friend"}),
    ],
)  # fmt: skip
def test_pairs_from_work_partners_made_and_lady_friends(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (the eighth test writers' misses, read once they moved to train): a kin word
        # said apart names the one person only in apposition or after "he's" ...
        ("callums got a sale on and i promised my mum id paint her hall", "en",
         {"Callum": None}),
        ("Nadia wants a place together and i share a room w my cousin", "en", {"Nadia": None}),
        ("annoyingly wise, my sister. Anna called at 6", "en", {"Anna": "sister"}),
        # ... a relation word before a list item is an item of its own ...
        ("сидели дома: мама, Полина, Вадим", "ru", {"Полина": None, "Вадим": None}),
        ("сидели дома: мама, Полина. хорошо", "ru", {"Полина": "mother"}),
        # ... and one after a name that names the next one is the next one's.
        ("были Вадим, подружка моя Наташа", "ru", {"Вадим": None, "Наташа": "friend"}),
        ("Вадим, кореш мой, приехал", "ru", {"Вадим": "friend"}),
        # A qualifier after the possessive ("сестра моя двоюродная").
        ("ирина сестра моя двоюродная, риелтор", "ru", {"Ирина": "cousin"}),
        ("ирина сестра моя, риелтор", "ru", {"Ирина": "sister"}),
        # A name's possessive in -ов before the relation word: his son, not the user's.
        ("Вадимов сын Кирилл приехал на неделю", "ru", {"Вадим": None, "Кирилл": None}),
        ("мой сын Кирилл приехал на неделю", "ru", {"Кирилл": "son"}),
        # ... unless the noun it stands before is the user's ("Ефимов ортопед мой").
        ("Ефимов ортопед мой перенес прием", "ru", {"Ефимов": "doctor"}),
        # "парень по имени" is any guy; a relation word in the next sentence is not this one's.
        ("новенький на смене, парень по имени Артур", "ru", {"Артур": None}),
        ("мой парень Артур приехал", "ru", {"Артур": "boyfriend"}),
        ("опять этот Артур. парень из соседнего дома", "ru", {"Артур": None}),
        # A word the dictionary lacks agrees with any case ("Паша тимлид").
        ("Паша тимлид когда узнал расстроился", "ru", {"Паша": "manager"}),
        # A place the dictionary reads more than a name, after a preposition of place.
        ("ей дали стажировку в Вене на всё лето", "ru", {}),
        ("сынок мой Саша женат на Лене", "ru", {"Саша": "son", "Лена": None}),
        # "с X расстались / сошлись" with no "мы".
        ("год был: с Катей расстались с Лизой сошлись", "ru",
         {"Катя": "ex", "Лиза": "girlfriend"}),
        ("с Катей ходили в кино", "ru", {"Катя": None}),
        # Working together, "their" in chat Russian.
        ("ОКСАНА лучший колорист, мы с ней вместе работаем", "ru", {"Оксана": "colleague"}),
        ("ОКСАНА лучший колорист, мы с ней вместе ходим в зал", "ru", {"Оксана": None}),
        ("ихний тимлид Саша сказал ждать", "ru", {"Саша": None}),
    ],
)  # fmt: skip
def test_kin_apart_lists_owners_and_places_in_chat(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: "thanks to" leads to a person; "at the" to a place, a capitalised run
        # after a place word is the same place ...
        ("the roof is watertight thanks to Sarah working through the sleet", {"Sarah": None}),
        ("we drove to Sarah yesterday", {}),
        ("my buddy Luis from the lot at the Galleria is the realest", {"Luis": "friend"}),
        ("dadi got admitted to Memorial Hermann last night", {}),
        # ... holidays name no one ...
        ("Merry Christmas Eve! What can I make?", {}),
        ("since christmas. Derek asked me out", {"Derek": None}),
        # ... the guy the user is seeing, said after the name ...
        ("Neil, the guy im seeing, says he hates the countryside", {"Neil": "boyfriend"}),
        ("Neil, the guy from the garage, says he hates the countryside", {}),
        # ... one of the user's clients ...
        ("Mrs Grant, one of our clients, is 88", {"Grant": "client"}),
        ("Mrs Grant, one of the old dears, is 88", {"Grant": None}),
        # ... the college or classes the user knows them from ...
        ("Rachel from vet nursing college is a manager now", {"Rachel": "classmate"}),
        ("Jasmine from my old UH accounting classes runs a study group", {"Jasmine": "classmate"}),
        ("Rachel from the bakery is a manager now", {"Rachel": None}),
        # ... and a break-up in a run-on.
        ("Nadia ended things we sat in the car for two hours", {"Nadia": "ex"}),
        ("Nadia ended things with her boss", {"Nadia": None}),
    ],
)  # fmt: skip
def test_places_holidays_and_relations_after_the_name(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (the train writers' colleague misses): where the user works, as "ours" ...
        ("у нас в бригаде новый парень Артур, подсобник", "ru", {"Артур": "colleague"}),
        ("у нас в гостях новый парень Артур", "ru", {"Артур": None}),
        ("Денис у нас в команде сеньор", "ru", {"Денис": "colleague"}),
        ("Оксана, мы с ней 6 лет в паре работаем", "ru", {"Оксана": "colleague"}),
        ("chantelle the new girl on my team makes me laugh", "en", {"Chantelle": "colleague"}),
        # ... the group they come from ...
        ("Ринат из ПТО сказал акты потерялись", "ru", {"Ринат": "colleague"}),
        ("Ильдар с соседней бригады говорит платят больше", "ru", {"Ильдар": "colleague"}),
        ("Ильдар с соседней улицы говорит платят больше", "ru", {"Ильдар": None}),
        ("Dariusz from the warehouse talks to me on breaks", "en", {"Dariusz": "colleague"}),
        ("Sarah from the pub talks to me on breaks", "en", {"Sarah": None}),
        # ... what they do, before the group, or "the other" of the user's trade.
        ("Lena, the postdoc in our group, reads everything", "en", {"Lena": "colleague"}),
        ("Bev, one of the other bus drivers, took my route", "en", {"Bev": "colleague"}),
        ("Sarah, one of the regulars, took my seat", "en", {"Sarah": None}),
    ],
)  # fmt: skip
def test_colleagues_by_where_the_user_works(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (the train writers' misses): children listed by the word for them ...
        ("We have 3 children, our boys Chidi (16) and Tobenna (7)", "en",
         {"Chidi": "son", "Tobenna": "son"}),
        ("im 41, two boys Osian (13) and Macsen (9)", "en", {"Osian": "son", "Macsen": "son"}),
        ("me and my boys Tom and Sam went fishing", "en", {"Tom": None, "Sam": None}),
        # ... by birth order after the name, and in Scots ...
        ("Dayo my last born is the clown. He just did an impression of me", "en",
         {"Dayo": "son"}),
        ("Dayo my mate is the clown. He just did an impression of me", "en", {"Dayo": "friend"}),
        ("my lassie Kirsty is a nursery nurse", "en", {"Kirsty": "daughter"}),
        # ... and a Russian therapist named in a message about going to one; not the partner
        # in couples counselling.
        ("нашла психолога, Ксения, онлайн", "ru", {"Ксения": "therapist"}),
        ("хожу теперь к психологу по вторникам, к Марине Олеговне", "ru",
         {"Марина Олеговна": "therapist"}),
        ("Theo and i started couples counselling, the counsellor is calm", "en", {"Theo": None}),
    ],
)  # fmt: skip
def test_children_by_word_and_order_and_russian_therapists(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (the train writers' false people): things the user named ...
        ("I have a cactus called Kevin that my housemate Anjali gave me", "en",
         {"Anjali": "roommate"}),
        ("we got a blue heeler named Tater, he rides shotgun", "en", {}),
        ("there's a girl at the wall called Nadia who gives me beta", "en", {"Nadia": None}),
        ("listed the house with a realtor named Sandra today", "en", {"Sandra": None}),
        # ... holidays named after people, firms of two surnames, titles, sign-offs, "Da" ...
        ("what does Louis Riel Day actually celebrate?", "en", {}),
        ("interview at Hollis & Price this friday", "en", {}),
        ("Chloe & Ravi came over for tea", "en", {"Chloe": None, "Ravi": None}),
        ("Told Pastor Adeyemi I can't leave the shop", "en", {"Adeyemi": None}),
        ("Happy Hogmanay! Bea x", "en", {}),
        ("Bea says happy Hogmanay to you", "en", {"Bea": None}),
        ("Da has dementia, he's 81", "en", {}),
        # ... a Russian patronymic is part of the name before it, and a name before a verb is
        # its subject, in its dictionary form.
        ("у вадима олеговича дочь тоже волейболистка", "ru", {"Вадим Олегович": None}),
        ("в прошлую среду Тима сам спросил про школы", "ru", {"Тима": None}),
        ("в субботу Рината вызывают на завод", "ru", {"Ринат": None}),
    ],
)  # fmt: skip
def test_things_named_firms_titles_sign_offs_and_russian_forms(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (the ninth test writers' misses, once they were train): a part of the day is
        # a greeting only where it opens a clause ...
        ("no run this morning, geoff was up at 4 again", "en", {"Geoff": None}),
        ("this morning mick rang about the van", "en", {"Mick": None}),
        ("morning Geoff! hope the knee's better", "en", {}),
        ("ok, good night Bev x", "en", {}),
        # ... short forms and names given since 1990 are names in any case ...
        ("bev and me did the car boot sale", "en", {"Bev": None}),
        ("kiana says the scan went fine", "en", {"Kiana": None}),
        # ... "my boy" / "my girl" from the gym or since school is a friend, from work a
        # colleague, "me and my girl" a partner; a son or a daughter otherwise ...
        ("my boy Tony from the gym is 19 and fast", "en", {"Tony": "friend"}),
        ("DRE my boy from work drove me in again", "en", {"Dre": "colleague"}),
        ("marcus been my dude since 3rd grade", "en", {"Marcus": "friend"}),
        ("me and my girl kiana got a flat", "en", {"Kiana": "girlfriend"}),
        ("my girl kiana got her ears pierced, she's 9", "en", {"Kiana": "daughter"}),
        ("my boy Tony is 19 today", "en", {"Tony": "son"}),
        ("told Sarah my girl was sick", "en", {"Sarah": None}),
        # ... "unc" is an uncle, "my pops name is X" a father (and no longer the user's own
        # name), a coach with his age after the name still a coach.
        ("unc cedric lent me the truck", "en", {"Cedric": "uncle"}),
        ("my pops name is Darnell, aint seen him in years", "en", {"Darnell": "father"}),
        ("his name is Darnell and he fixes bikes", "en", {"Darnell": None}),
        ("my name is Darnell", "en", {}),
        ("coach Ray 61 and still holding pads", "en", {"Ray": "teacher"}),
        ("we were on Ward 9 all night", "en", {}),
    ],
)  # fmt: skip
def test_parts_of_the_day_short_forms_and_my_boy_from_the_gym(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (p93-p96's misses): a relation word before a name in another case is the
        # name's own relation ("учительница мирона": Мирон's teacher), in the same case the
        # user's ...
        ("оксана викторовна, учительница мирона, пишет мне ночью", "ru",
         {"Оксана Викторовна": None, "Мирон": None}),
        ("брат Гены приехал", "ru", {"Гена": None}),
        ("созвонилась с сестрой Катей", "ru", {"Катя": "sister"}),
        ("видела сестру Аню", "ru", {"Аня": "sister"}),
        ("хирург Бахтияров вышел и сказал всё хорошо", "ru", {"Бахтияров": "doctor"}),
        # ... "брательник" is a brother, and a mistyped verb after "мама" is no one.
        ("брательник Гена каждый вечер заезжает", "ru", {"Гена": "brother"}),
        ("мирон на плечах, мама фоткала и ворчала", "ru", {"Мирон": None}),
        ("бабуля валя напекла пирогов", "ru", {"Валя": "grandmother"}),
    ],
)  # fmt: skip
def test_russian_relations_of_another_by_case_and_mistyped_verbs(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34 (p93-p96's false relations): a relation word used as a verb, as a noun's
        # modifier, as what someone does for a living, or of another, says no relation ...
        ("i help coach his team, Caleb is 11", {"Caleb": None}),
        ("Caleb loves his coach", {"Caleb": None}),
        ("with gareth today, im leading the client bit", {"Gareth": None}),
        ("told mum about sam and i said hes an art teacher", {"Sam": None}),
        ("told mum about sam, hes the best teacher i ever had", {"Sam": "teacher"}),
        ("Priya aunty is mums best friend", {"Priya": None}),
        ("Priya is my best friend", {"Priya": "friend"}),
        # ... "nani" is a grandmother; a parent word is no title before a lowercase word, and
        # a lowercase word ending as a verb with its "g" dropped is no name.
        ("my nani Kusum is 87 and ruthless", {"Kusum": "grandmother"}),
    ],
)  # fmt: skip
def test_relation_words_as_verbs_modifiers_and_roles(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text) == expected


def test_a_parent_word_is_no_title_and_a_dropped_g_no_name() -> None:
    # "mum rang": "rang" read as a possible name beside "mum" is no one; "my cousin vik" is.
    from selfimprint.domain.structured.cues import cues as language_cues

    english = language_cues("en")
    assert find_people("mum rang about sunday", english, possible=["rang"]) == ()
    assert [m.name for m in find_people("my cousin vik rang", english, possible=["vik"])] == ["Vik"]
    # A lowercase word ending as a verb with its "g" dropped is no name, however sure the
    # reader; a listed name so ending is.
    sure = ["peggy", "leavin", "kevin"]
    assert [m.name for m in find_people("peggy leavin friday", english, likely=sure)] == ["Peggy"]
    assert [m.name for m in find_people("kevin leavin friday", english, likely=sure)] == ["Kevin"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34 (p93-p96's misses): a surname typed in lowercase, in its cases, and a
        # lowercase name the dictionary reads more often as a noun, right before its verb ...
        ("бесит что шилов на новом крузаке катается", {"Шилов": None}),
        ("суд обязал шилова выплатить всё", {"Шилов": None}),
        ("рая принесла медовик", {"Рая": None}),
        # ... not dad's ("батина мама"), not an unknown word the dictionary guesses a surname
        # for, not a name governed by a preposition, not a verb across a full stop.
        ("это батина мама, едем к ней", {}),
        ("если акум сел, что делать", {}),
        ("с августа поднимает аренду", {}),
        ("не пил. горжусь собой", {}),
    ],
)  # fmt: skip
def test_russian_lowercase_surnames_and_names_before_their_verb(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


def test_possessives_typed_without_their_apostrophe_and_places_named_after_someone() -> None:
    # Issue 34: a name ending in "s" keeps it before "'s" ("carys's", not Cary's); a lowercase
    # word the reader takes for a name that is a listed name and an "s" is that name's
    # possessive ("jordans sign"), a listed name itself stays ("marcos mom"), and a capitalised
    # or titled one is the name as typed ("Dr Evans").
    from selfimprint.domain.structured.cues import cues as language_cues

    english = language_cues("en")

    def names(text: str, *likely: str) -> list[str]:
        return [m.name for m in find_people(text, english, likely=likely)]

    assert names("we're out of carys's box room soon") == []
    assert names("we're out of carys's box room soon", "carys") == ["Carys"]
    assert names("jordans sign said run faster", "jordans") == ["Jordan"]
    assert names("marcos mom is up from texas", "marcos") == ["Marcos"]
    assert names("Dr Evans our GP listens", "evans") == ["Evans"]
    # A word after "Lake", "San" or "Mount" names a place; a known person stays one.
    assert names("not running Lake Harriet in may") == []
    assert names("San Antonio trip is off") == []
    assert names("Harriet is running in may") == ["Harriet"]
    assert [m.name for m in find_people("Lake Harriet", english, known=["Harriet"])] == ["Harriet"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a name's dative read as its nominative over an indeclinable reading of the
        # same letters ("Алине" is Алина's), one ending otherwise stays as typed ("Гоги") ...
        ("надо дела передать новенькой, Алине, завтра первый день", {"Алина": None}),
        ("вчера у Гоги на дне рождения была", {"Гоги": None}),
        # ... a diminutive the dictionary lacks, in its cases, read as its "-ка" form, "ё"
        # kept as typed ...
        ("всё благодаря Ниночке, она там всех знает", {"Ниночка": None}),
        ("не спали мы обе с Полинкой", {"Полинка": None}),
        ("виктор Артёмку рыбачить научил", {"Виктор": None, "Артёмка": None}),
        # ... a possessive adjective of a name before a noun it agrees with is that name's,
        # however else the dictionary reads it ...
        ("Тимур оказался Серёгиным племянником", {"Тимур": None, "Серёга": None}),
        ("АНДРЕЕВА ЖЕНА ПРИЕХАЛА", {"Андрей": None}),  # shouted, its ending too
        ("так что Анину мечту про котёнка я не потяну", {"Аня": None}),
        ("подали на Димино банкротство", {"Дима": None}),
        # ... not before a noun in another case or gender ("у Ларионова отпуск": his), not
        # an everyday word ("машину", "тишины").
        ("правый глаз перенесли, у Ларионова отпуск", {"Ларионов": None}),
        ("надо продавать машину солярис", {}),
        ("режим тишины дома", {}),
        ("вижу Машин живот в инсте и реву", {"Маша": None}),
    ],
)  # fmt: skip
def test_russian_names_in_their_cases_and_possessives_before_a_noun(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a relation word by trade and the name after the same preposition, a comma
        # between, are one person; kin so listed are a list ...
        ("Завтра к эндокринологу, к Дине Маратовне, а я кровь не сдал",
         {"Дина Маратовна": "doctor"}),
        ("зашла к маме, к Оле не успела", {"Оля": None}),
        # ... and after "у" a relation word in the name's genitive is the name's own; one in
        # another case, or before "нет", is someone else's.
        ("вчера на тусовке у димы одногруппника был", {"Дима": "classmate"}),
        ("у насти мама заболела", {"Настя": None}),
        # Kin after "у" are the name's own even in her case ("у Насти брата забрали"), and a
        # list after the relation word is a list ("к начальнику, к Оле, к Пете").
        ("у Насти брата в армию забрали", {"Настя": None}),
        ("сходила к начальнику, к Оле, к Пете", {"Оля": None, "Петя": None}),
    ],
)  # fmt: skip
def test_russian_relations_said_beside_the_name_in_its_case(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a "-к-" diminutive of a first name the dictionary does not hold, in any case
        # and in lowercase, is a person in its "-ка" form ...
        ("полинка сегодня в первый класс пошла", {"Полинка": None}),
        ("зять мой Денис, но оксанку вообще не слушает", {"Денис": None, "Оксанка": None}),
        ("вчера с варькой гуляли", {"Варька": None}),
        # ... not a word its base is no name of, nor a known word with its soft sign dropped.
        ("зарплатку опять задержали", {}),
        ("в сумке валерянка и помада", {}),
        # ... and so is a "-ха" one ("илюха": Илья's; "натаха": Наташа's), but not a word
        # whose base is no name.
        ("илюха огэ по математике послезавтра сдает", {"Илюха": None}),
        ("квартиру им с илюхой оставил", {"Илюха": None}),
        ("посидели с натахой и колюхой", {"Натаха": None, "Колюха": None}),
        ("вот непруха так непруха", {}),
    ],
)  # fmt: skip
def test_russian_diminutives_the_dictionary_lacks(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: where the dictionary allows two forms of one name, the form the message
        # types settles it ("витин" alone is read as Вита's; with "витю" it is Витя's) ...
        ("надо записать витю на холтер: рябов, витин кардиолог, велел",
         {"Витя": None, "Рябов": None}),
        ("витин кардиолог велел", {"Вита": None}),
        ("Руслана и Руслан поженились", {"Руслана": None, "Руслан": None}),
        # ... and a surname-like word after a preposition of place with no noun after it is a
        # street, where a possessive after its noun stays one.
        ("офис в центре на Ленина, кофе бесплатный", {}),
        ("Андрей Катин вроде мужик толковый", {"Андрей": None, "Катя": None}),
    ],
)  # fmt: skip
def test_russian_one_name_per_person_and_streets_named_after_someone(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a lowercase word the dictionary reads mostly as a common noun is no name
        # for an indeclinable name's readings counted once per case ("хату") ...
        ("думаю снимать хату но на какие шиши", {}),
        ("у алсу днюха", {"Алсу": None}),
        ("не ответил кристине насчёт майских", {"Кристина": None}),
        # ... and a name after "в" only in its prepositional case is where, not who.
        ("первый день в Нуре. кухня огонь", {}),
        ("влюбилась в Колю по уши", {"Коля": None}),
    ],
)  # fmt: skip
def test_russian_nouns_under_indeclinable_names_and_venues_after_v(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a possessive whose base the dictionary only guesses a name for is one
        # before a noun it agrees with, not before an adjective ("кофемашина бесплатная").
        ("тамунина мама учит меня лепить хинкали", {"Тамуна": None}),
        ("в ординаторской кофемашина бесплатная, так что я теперь кофеман", {}),
    ],
)  # fmt: skip
def test_russian_possessives_of_guessed_names_need_their_noun(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected", "lang"),
    [
        # Issue 34: a feminine relation noun is read by its own nominative (the dictionary
        # files супруга under супруг), the masculine one stays a husband ...
        ("Нину, супругу мою, положили на обследование", {"Нина": "wife"}, "ru"),
        ("Олегу, супругу моему, дали отпуск", {"Олег": "husband"}, "ru"),
        # ... a "-ка" diminutive in its nominative is not in apposition with a genitive ...
        ("Тимурка деда не слушается совсем", {"Тимурка": None}, "ru"),
        ("Тимурка дед мой, ему 80", {"Тимурка": "grandfather"}, "ru"),
        # ... kin the guide has no word for are "ours" without being anyone we work with ...
        ("Таня, невестка наша, приехала из Перми", {"Таня": None}, "ru"),
        ("Таня, технолог наш, приехала из Перми", {"Таня": "colleague"}, "ru"),
        # ... "ex" before a trade is a prefix, not a former partner ...
        ("Dmitri is a good guy. ex marine, very calm", {"Dmitri": None}, "en"),
        ("Dmitri texted at 2am. ex is back in town apparently", {"Dmitri": "ex"}, "en"),
        # ... someone "in" a department is a colleague as one "from" it is ...
        ("Priya in payroll sorted my overtime", {"Priya": "colleague"}, "en"),
        ("Priya in Leeds sorted my overtime", {"Priya": None}, "en"),
        # ... the group said before the name ...
        ("the lady from accounts, Joan, retired today", {"Joan": "colleague"}, "en"),
        ("the lady from the chippy, Joan, retired today", {"Joan": None}, "en"),
        # ... and "me n X are done" is a break-up as "me and X are done" is.
        ("me n kyle are done. not crying about it", {"Kyle": "ex"}, "en"),
        ("me n kyle are going fishing", {"Kyle": None}, "en"),
    ],
)  # fmt: skip
def test_relations_by_gender_case_trade_prefix_and_department(
    text: str, expected: dict[str, str | None], lang: str
) -> None:
    assert _people(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34 (a review of the diff): "in" a department is a colleague only where the word
        # is no school year or cause.
        ("Leo in reception got a gold star today, so proud of my son", {"Leo": "son"}),
        ("Mia in support of the plan, Tom against", {"Mia": None, "Tom": None}),
        ("Priya in payroll sorted my overtime", {"Priya": "colleague"}),
    ],
)  # fmt: skip
def test_in_a_department_but_not_a_school_year(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text, "en") == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (p105-p112's misses): a relation noun in apposition says who an elder is
        # where the kin title before her name is politeness; kin so said, or none, leave it.
        ("тетя валя, наша бывшая соседка из Купчино, звонит маме", "ru", {"Валя": "neighbour"}),
        ("Соседка наша в Горелове баба Шура 80 лет", "ru", {"Шура": "neighbour"}),
        ("тетя валя звонит маме каждый день", "ru", {"Валя": "aunt"}),
        ("тётя Люба, сестра мамы, приехала", "ru", {"Люба": "aunt"}),
        # ... the user's relation word, then "a guy named": that one; no one's, no relation.
        ("my new manager is gonna be a guy named Brent who says 'synergy'", "en",
         {"Brent": "manager"}),
        ("kirsty found us a couples counsellor, a woman called Moira. very calm", "en",
         {"Moira": "therapist"}),
        ("The physio is a young lad called Tariq from Leith", "en", {"Tariq": None}),
        ("сегодня первая встреча с психологом, Елена Андреевна зовут", "ru",
         {"Елена Андреевна": "therapist"}),
        ("разговорился с медсестрой, Наташа зовут", "ru", {"Наташа": None}),
        # ... Russian apposition with the possessive after the noun or "new" before it, "свой"
        # said by the user, an owned "мужик", a child by birth order.
        ("Костя, помощник мой, 25 лет, молодой но толковый", "ru", {"Костя": "colleague"}),
        ("Марина Олеговна, новая моя начальница, моложе Лены", "ru",
         {"Марина Олеговна": "boss", "Лена": None}),
        ("в прошлую среду была у врача своего у Людмилы Ивановны", "ru",
         {"Людмила Ивановна": "doctor"}),
        ("мама ходила к врачу своему Людмиле Ивановне", "ru", {"Людмила Ивановна": None}),
        ("Коля теперь у брата своего Серёги в сервисе", "ru", {"Коля": None, "Серёга": None}),
        ("позавчера мужик мой Коля букет с клумбы нарвал", "ru", {"Коля": "husband"}),
        ("мужик этот Ашот звонил", "ru", {"Ашот": None}),
        ("надо формы купить старшенькому моему тимуру", "ru", {"Тимур": "son"}),
        ("младшая наша Соня пошла в школу", "ru", {"Соня": "daughter"}),
    ],
)  # fmt: skip
def test_appositions_over_titles_people_named_and_russian_possessives_after(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (p105-p112's misses): everyday words, only where the user owns them ...
        ("Ruth my counsellor reckons wait", "en", {"Ruth": "therapist"}),
        ("my friend's counsellor Ruth reckons wait", "en", {"Ruth": None}),
        ("ma maw Ann's heart op is in October", "en", {"Ann": "mother"}),
        ("her maw Ann is in hospital", "en", {"Ann": None}),
        ("my da Tam is a retired bus driver", "en", {"Tam": "father"}),
        ("my wee lassie Isla is 4", "en", {"Isla": "daughter"}),
        ("my wee man Jack started school", "en", {"Jack": "son"}),
        ("my work wife Priya keeps me sane", "en", {"Priya": "colleague"}),
        ("my wife Priya keeps me sane", "en", {"Priya": "wife"}),
        ("and my man marcus cried during grace", "en", {"Marcus": "partner"}),
        ("my old man Pete still drives", "en", {"Pete": "father"}),
        # ... who the user works beside, by the shift or the trade shared ...
        ("the guy Kev, lad from my shift, drives the forklift", "en", {"Kev": "colleague"}),
        ("Kev drinks from the kitchen tap", "en", {"Kev": None}),
        ("Linda and I nursed together on ward 7", "en", {"Linda": "colleague"}),
        ("Linda and I went together to the shops", "en", {"Linda": None}),
        # ... friends said of "we", not of another pair ...
        ("Ava and i made up after the fight. best friends since grade 4", "en",
         {"Ava": "friend"}),
        ("Mum and Jo have been friends for years, Jo visited today", "en", {"Jo": None}),
        ("Mum and Jo were friends for years, Jo visited today", "en", {"Jo": None}),
        # ... a plural relation word before the names it lists ...
        ("new neighbours are a retired couple Derek and Pat", "en",
         {"Derek": "neighbour", "Pat": "neighbour"}),
        ("сыновья у меня: тимур старший, 11 лет, и амир 8 лет", "ru",
         {"Тимур": "son", "Амир": "son"}),
        ("соседи у нас: Петя и Маша. хорошие", "ru", {"Петя": "neighbour", "Маша": "neighbour"}),
        ("Катины сыновья: Тимур и Амир", "ru", {"Катя": None, "Тимур": None, "Амир": None}),
        ("её сыновья: Тимур и Амир. хорошие", "ru", {"Тимур": None, "Амир": None}),
        # ... and a relationship ended names an ex.
        ("Ive ended it with Bernard on Sunday", "en", {"Bernard": "ex"}),
        ("i gave marcus the ring back tonight. it's over.", "en", {"Marcus": "ex"}),
        ("i gave marcus the book back tonight", "en", {"Marcus": None}),
        ("she gave marcus the ring back tonight", "en", {"Marcus": None}),
        ("с Мариной всё. вчера поговорили спокойно", "ru", {"Марина": "ex"}),
        ("с Мариной всё хорошо, вчера гуляли", "ru", {"Марина": None}),
        ("она хочет съехаться, а я не могу, поэтому с Мариной розошлись", "ru",
         {"Марина": "ex"}),
    ],
)  # fmt: skip
def test_everyday_words_shifts_lists_and_relationships_ended(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (held-out p117-p120, read after they were scored): a relation word the
        # Russian dictionary lacks has only guessed cases, so it is not read as disagreeing
        # with the name; a known word still must agree ("учительница мирона" is Мирон's).
        ("мой тимлид Марк сказал что первый месяц можно тупить", "ru", {"Марк": "manager"}),
        ("тимлид Марк сказал что можно", "ru", {"Марк": "manager"}),
        ("учительница мирона звонила", "ru", {"Мирон": None}),
    ],
)  # fmt: skip
def test_relation_words_no_dictionary_holds(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34 (a review of the diff): a sibling by birth order stays a sibling; a relation
        # said with "named" or "зовут" is that one's only; another's new friends are theirs;
        # "work" before a kin word only with "my"; only a masculine "мой" makes a husband; "ma
        # boy" may be a mate; friends since, after a comma, are someone else's.
        ("Брат мой младший Николай приехал", "ru", {"Николай": "brother"}),
        ("сестра моя младшая Катя приехала", "ru", {"Катя": "sister"}),
        ("my new manager is a guy named Brent. Dana is gutted", "en",
         {"Brent": "manager", "Dana": None}),
        ("психолог новый, зовут Елена. Катя посоветовала", "ru",
         {"Елена": "therapist", "Катя": None}),
        ("her new friends Amy and Jo came", "en", {"Amy": None, "Jo": None}),
        ("mum's new neighbours are a retired couple Derek and Pat", "en",
         {"Derek": None, "Pat": None}),
        ("got home from work mum Linda had made dinner", "en", {"Linda": "mother"}),
        ("Петя, мужик моей подруги, помог", "ru", {"Петя": "friend"}),
        ("Вася, мужик мой знакомый, помог", "ru", {"Вася": None}),
        ("ma boy Jake came round", "en", {"Jake": None}),
        ("mum and Jo, friends since school, came", "en", {"Jo": None}),
        # ... and a ring given back that was hers, or a question, is no break-up.
        ("i just gave Emma her ring back, she left it at mine", "en", {"Emma": None}),
        ("С Олей всё? она обиделась", "ru", {"Оля": None}),
        ("с Олей всё. вчера поговорили", "ru", {"Оля": "ex"}),
    ],
)  # fmt: skip
def test_review_guards_for_relations_read_from_the_twelfth_writers(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "likely", "expected"),
    [
        # Issue 34: kin words of the languages users' families speak are relation words, never
        # names, even where the reader of words takes them for one ("amma", "appa": 0.93-0.99)
        # ...
        ("amma is acting like I joined a cult", {"amma"}, {}),
        ("appa says hes busy on the 21st", {"appa"}, {}),
        ("dadi's got a cardiology appt next thursday", {"dadi"}, {}),
        # ... and say who the name beside them is.
        ("my akka priya is visiting", {"priya"}, {"Priya": "sister"}),
        ("my masi priyanka is the chef of our family", {"priyanka"}, {"Priyanka": "aunt"}),
        ("my kuya nonoy has been in Dubai 8 years", {"nonoy"}, {"Nonoy": "brother"}),
        # A name that is also someone's kin word elsewhere stays a name.
        ("lola is coming over tomorrow", {"lola"}, {"Lola": None}),
    ],
)  # fmt: skip
def test_kin_words_of_other_languages(
    text: str, likely: set[str], expected: dict[str, str | None]
) -> None:
    found = find_people(text, cues("en"), likely=likely)
    assert {m.name: m.relation for m in found} == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34, the labelling guide's rule 8: a fiancé(e) is a partner, a thesis supervisor
        # or a choirmaster a teacher.
        ("невеста моя Катя приехала", {"Катя": "partner"}),
        ("мой жених Олег уехал в Казань", {"Олег": "partner"}),
        ("научник Игорь Палыч сказал амбициозно", {"Игорь Палыч": "teacher"}),
        ("хормейстер наша Галина Васильевна гоняла альтов", {"Галина Васильевна": "teacher"}),
    ],
)  # fmt: skip
def test_relations_the_list_has_no_word_for(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a lowercase name that is also a town's is the person, unless a preposition
        # of place stands before it or the town outweighs the name.
        ("посидели сегодня с артёмом в кафешке", {"Артём": None}),
        ("заскочу к артему в общагу", {"Артем": None}),
        ("летим в астану в пятницу", {}),
        ("вернулся из караганды", {}),
    ],
)  # fmt: skip
def test_a_lowercase_name_that_is_also_a_town(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "language", "likely", "expected"),
    [
        # Issue 34: a name and an age opening a sentence introduce the user, not someone else
        # ...
        ("right quick intro. shauna, 34, staff nurse, nights", "en", {"shauna"}, {}),
        ("ok so you know who you talking to. Desmond Campbell, 58, born in Kingston", "en",
         set(), {}),
        ("Игорь, 45, работаю в банке", "ru", set(), {}),
        # ... unless the sentence goes on to say what the person is, or who they are to the user.
        ("Tom, 34, is a plumber", "en", set(), {"Tom": None}),
        ("Tom, 34, works as a plumber", "en", set(), {"Tom": None}),
        ("Игорь, 45, работает в банке", "ru", set(), {"Игорь": None}),
        # ... and a decimal or a time is no age.
        ("Sarah, 3.5 hours late again", "en", {"sarah"}, {"Sarah": None}),
        ("Tom, 10:30 at the pub tonight?", "en", set(), {"Tom": None}),
        ("my brother Tom, 34, still lives with mum", "en", set(), {"Tom": "brother"}),
    ],
)  # fmt: skip
def test_a_name_and_an_age_introduce_the_user(
    text: str, language: str, likely: set[str], expected: dict[str, str | None]
) -> None:
    found = find_people(text, cues(language), likely=likely)
    assert {m.name: m.relation for m in found} == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a lowercase surname is a woman's where a verb in the feminine past follows
        # it, else the masculine form the dictionary gives.
        ("зайцева сказала с моими таблетками нельзя", {"Зайцева": None}),
        ("врачиха зайцева направила на мрт", {"Зайцева": "doctor"}),
        ("у шилова день рождения", {"Шилов": None}),
        ("у шилова была температура", {"Шилов": None}),
        ("шилов на претензию молчит", {"Шилов": None}),
    ],
)  # fmt: skip
def test_a_lowercase_womans_surname(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: "Sister" or "Brother" typed capitalised with no "my" before it is a
        # congregation's title, not kin ...
        ("told Sister Beverly yday and she take it hard", {"Beverly": None}),
        ("the choir is led by Brother Femi, strict as anything", {"Femi": None}),
        # A word opening a sentence is capitalised whatever it is; "mi" is Jamaican "my".
        ("Sister Amy is coming tomorrow", {"Amy": "sister"}),
        ("mi Brother Femi reach from Kingston", {"Femi": "brother"}),
        # ... where "my" before it keeps the kin word.
        ("my big Sister Amy is coming", {"Amy": "sister"}),
        ("my sister Amy is coming", {"Amy": "sister"}),
    ],
)  # fmt: skip
def test_a_church_title_is_not_kin(text: str, expected: dict[str, str | None]) -> None:
    assert _people(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a shouted name and patronymic are one person; a first name before a
        # woman's patronymic is read as hers.
        ("АНДРЕЙ НИКОЛАЕВИЧ уже намекает со следующего года", {"Андрей Николаевич": None}),
        ("написала Галине Васильевне что из хора ухожу", {"Галина Васильевна": None}),
        ("вчера мне выдал: Евгения Петровна, нужен словесник", {"Евгения Петровна": None}),
    ],
)  # fmt: skip
def test_shouted_patronymics_and_womens_first_names(
    text: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34: a capitalised "Miss" before a name is a title, the relation word before it
        # says who she is ...
        ("mi mada Miss Icilda 83 years old", {"Icilda": "mother"}),
        ("my mum Miss Icilda is 83", {"Icilda": "mother"}),
        # ... while the verb leaves the name alone.
        ("i miss Tom so much", {"Tom": None}),
    ],
)  # fmt: skip
def test_miss_is_a_title_before_a_name(text: str, expected: dict[str, str | None]) -> None:
    found = find_people(text, cues("en"), likely={"icilda", "tom"})
    assert {m.name: m.relation for m in found} == expected


def test_a_known_name_typed_with_its_possessive_s_and_no_apostrophe() -> None:
    """Issue 34: "kirstys birthday" is Kirsty's when the user has told of Kirsty, though no
    list of first names holds her; unknown, the word stays as typed."""
    text = "kirstys birthday is on the 19th"
    told = find_people(text, cues("en"), known=["Kirsty"], likely={"kirstys"})
    assert [m.name for m in told] == ["Kirsty"]
    assert [m.name for m in find_people(text, cues("en"), likely={"kirstys"})] == ["Kirstys"]


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34: more everyday words: a course or year group, "сестрица", a break-up said
        # "разбежались", Jamaican "bredren".
        ("Ираклий с нашего потока, он сам из Тбилиси", "ru", {"Ираклий": "classmate"}),
        ("дома Люда сестрица моя с папой разругалась", "ru", {"Люда": "sister"}),
        ("мы с катей разбежались", "ru", {"Катя": "ex"}),
        ("мы с катей разбежались по домам", "ru", {"Катя": None}),
        ("Errol is my bredren from back home", "en", {"Errol": "friend"}),
    ],
)  # fmt: skip
def test_more_everyday_words_from_the_fourteenth_writers(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # Issue 34, the fifteenth test writers' misses: a woman therapist's words; a
        # former trade after a name is no ex, a former partner still is.
        ("моя прошлая психологиня ирина сергеевна была слишком мягкая", "ru",
         {"Ирина Сергеевна": "therapist"}),
        ("была у новой психотерапевтки марины олеговны", "ru", {"Марина Олеговна": "therapist"}),
        ("управляющий в бородаче гоша бывший военный", "ru", {"Гоша": "manager"}),
        ("вчера звонил костя бывший мой", "ru", {"Костя": "ex"}),
        ("написал костя бывший козёл", "ru", {"Костя": "ex"}),
        # "Гена" and its cases are a name, though the dictionary weighs a gene's cases more.
        ("Гена у меня упрямый как баран", "ru", {"Гена": None}),
        ("ресторан отменили, потому что гене долго сидеть нельзя", "ru", {"Гена": None}),
        ("гены пальцем не раздавишь", "ru", {}),
        ("у меня мутация в гене BRCA", "ru", {}),
    ],
)  # fmt: skip
def test_therapists_in_the_feminine_former_trades_and_gena(
    text: str, language: str, expected: dict[str, str | None]
) -> None:
    assert _people(text, language) == expected
