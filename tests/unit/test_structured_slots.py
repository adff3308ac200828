"""Contradictions the structured extractor reads between a new message and an older memory of
the same slot (job, home, relationship, plans, habits), and the same-topic messages it must
leave alone (tests/data/extraction/README.md, "Contradictions"). The pairs were written for
these rules and are not in the labelled set."""

from __future__ import annotations

import pytest

from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.slots import Claim, claims, contradicted, contradicts
from selfimprint.domain.structured.slots_model import Slot

pytestmark = pytest.mark.unit


def _contradicts(language: str, older: str, newer: str) -> bool:
    return contradicted(newer, [("old", older)], cues(language)) == ("old",)


@pytest.mark.parametrize(
    ("language", "older", "newer"),
    [
        ("en", "I work as a barista at Bean There.", "I finally quit the café, no more 6am shifts"),
        ("en", "I work at Globex as a data analyst.", "I got let go from Globex on Monday"),
        (
            "en",
            "I teach maths at a secondary school.",
            "I'm not teaching anymore, I retrained as an electrician",
        ),
        ("en", "I work at Initech.", "Started at Hooli this week, new team is great"),
        ("en", "I'm a nurse at St. Mary's.", "I'm retired now! no more night shifts ever"),
        ("en", "I work remotely for Globex.", "got made redundant today, 20 of us"),
        ("en", "I work for a startup called Nimbus.", "Nimbus shut down and I'm out of a job"),
        ("en", "I work at Initech.", "handed in my notice at Initech, my last day was yesterday"),
        ("en", "I live in Leeds.", "we're in Glasgow now, the move went fine"),
        (
            "en",
            "I live with my parents in Kazan.",
            "got my own place finally, no more living with mum and dad",
        ),
        ("en", "I rent a room in Camden.", "We bought a house in Croydon!"),
        ("en", "I live in Austin.", "been living in Portland for two months now"),
        ("en", "I'm dating Lina.", "Lina dumped me over text, can you believe it"),
        ("en", "My boyfriend is Tom.", "Tom and I split last week"),
        ("en", "I'm married to Daniel.", "Daniel moved out and we've filed for divorce"),
        ("en", "I'm single.", "met someone amazing, we've been seeing each other for a month"),
        ("en", "My girlfriend is Mia.", "I'm seeing someone new, her name's Ava"),
        (
            "en",
            "I'm going to Anna's wedding in June.",
            "not going to Anna's wedding after all, can't get the days off",
        ),
        ("en", "I have a dentist appointment on Thursday.", "the dentist rescheduled me to Monday"),
        (
            "en",
            "I'm planning to run the Berlin marathon in September.",
            "pulling out of the Berlin marathon, my knee won't cope",
        ),
        ("en", "We're flying to Japan in April.", "Japan is off, we're doing Portugal instead"),
        ("en", "I'll start therapy in May.", "decided against therapy for now"),
        ("en", "I'm vegetarian.", "I started eating meat again, mostly chicken"),
        ("en", "I smoke about a pack a day.", "I quit smoking last month and feel great"),
        ("en", "I don't drink coffee.", "I've started drinking coffee, two cups a day"),
        ("en", "I run every morning before work.", "haven't run in months, my knee is shot"),
        ("en", "I go to the gym five times a week.", "cancelled my gym membership, too expensive"),
        ("en", "I'm vegan.", "not vegan anymore, cheese won"),
        (
            "ru",
            "Я работаю в Сбере.",
            "написала заявление по собственному, в пятницу последний день",
        ),
        ("ru", "Я работаю курьером.", "больше не курьерю, устроилась в магазин"),
        ("ru", "Я работаю в Яндексе.", "меня сократили вместе со всем отделом"),
        ("ru", "Я работаю в Озоне.", "теперь я в Авито, перешёл на прошлой неделе"),
        ("ru", "Я учительница в школе.", "ушла из школы, теперь репетиторствую"),
        ("ru", "Я живу в Казани.", "мы уже месяц как живём в Сочи, обустраиваемся"),
        ("ru", "Я живу в Москве.", "Переехали в Казань к родителям мужа"),
        ("ru", "Живу с соседкой на Васильевском.", "съехала от соседки, теперь живу одна"),
        ("ru", "Встречаюсь с Пашей.", "Паша ушёл к другой"),
        ("ru", "Я замужем за Игорем.", "подала на развод, больше не могу"),
        ("ru", "Я одна.", "у меня появилась девушка, её зовут Вера"),
        ("ru", "Моя девушка — Лена.", "мы с Леной расстались"),
        ("ru", "В апреле лечу в Турцию.", "Турция отменяется, денег нет"),
        ("ru", "Собираюсь на концерт в субботу.", "концерт перенесли на осень"),
        ("ru", "Хочу поступить в магистратуру.", "в магистратуру не иду, остаюсь на работе"),
        ("ru", "Летом едем на море.", "на море в этом году не едем, ремонт"),
        ("ru", "Планирую купить машину.", "передумал покупать машину"),
        ("ru", "Я вегетарианка.", "снова ем мясо, врач посоветовал"),
        ("ru", "Я курю.", "бросила курить месяц назад"),
        ("ru", "Я не пью кофе.", "теперь пью кофе каждое утро"),
        ("ru", "Бегаю по утрам.", "перестала бегать, колени болят"),
        ("ru", "Я хожу в спортзал три раза в неделю.", "забросила спортзал, времени нет"),
        (
            "en",
            "I work at Initech as a backend developer.",
            "Today was my last day at Initech, feels weird",
        ),
        ("en", "I work at a law firm downtown.", "I resigned this morning, no plan B yet"),
        (
            "en",
            "I'm a teacher at Lincoln High.",
            "I've left teaching for good, joined a startup as a PM",
        ),
        ("en", "I work for Globex.", "I'm now at Initrode, started Monday"),
        ("en", "I work as a cashier at Tesco.", "got sacked from Tesco lol"),
        ("en", "I live in Madrid.", "we finally relocated to Valencia last month"),
        ("en", "I live in London.", "Living in Bristol now, way cheaper"),
        (
            "en",
            "I rent a flat in Leeds with two roommates.",
            "moved out of Leeds, back at my parents' place",
        ),
        ("en", "I'm dating Sam.", "Sam and I broke up last night"),
        ("en", "I'm married to Claire.", "Claire and I are getting divorced"),
        ("en", "I'm single and not looking.", "I've got a boyfriend!! his name is Leo"),
        ("en", "My partner is Jess.", "Jess left me for her coworker"),
        (
            "en",
            "I'm going to the Coldplay concert on Saturday.",
            "sold my Coldplay tickets, not going anymore",
        ),
        (
            "en",
            "I'm planning a trip to Iceland in March.",
            "Iceland trip got cancelled, the airline went bust",
        ),
        (
            "en",
            "I have a job interview with Spotify on Thursday.",
            "Spotify moved my interview to next week",
        ),
        ("en", "I'm going to learn Spanish this year.", "gave up on Spanish, too busy"),
        ("en", "I don't eat meat.", "I eat meat again, my doctor insisted"),
        ("en", "I smoke when I'm stressed.", "I haven't smoked in six months!"),
        ("en", "I drink a lot of coffee.", "cut out coffee completely, sleeping better"),
        ("en", "I go running every evening.", "I stopped running after the knee surgery"),
        ("ru", "Я работаю в Тинькофф.", "сегодня мой последний день в Тинькофф"),
        ("ru", "Я работаю бухгалтером.", "ушла с работы, буду искать что-то новое"),
        ("ru", "Я работаю в Сбере.", "я теперь работаю в ВТБ"),
        ("ru", "Я живу в Питере.", "мы теперь живём в Калининграде"),
        ("ru", "Я живу в Москве.", "уехали из Москвы насовсем"),
        ("ru", "Встречаюсь с Олегом.", "Олег меня бросил"),
        ("ru", "Я женат на Маше.", "мы с Машей развелись"),
        ("ru", "В субботу идём на свадьбу к Лене.", "на свадьбу к Лене не идём, заболел ребёнок"),
        ("ru", "Собираюсь в июле в Грузию.", "Грузия отпадает, не дали отпуск"),
        ("ru", "Я не курю.", "опять начал курить, нервы"),
        ("ru", "Я вегетарианец.", "больше не вегетарианец"),
        ("ru", "Пью кофе каждое утро.", "отказалась от кофе, пью цикорий"),
        ("en", "I work at Acme Corp.", "Acme let me go after 6 years"),
        (
            "en",
            "I'm a software engineer at Stripe.",
            "I got an offer from Google and accepted it, starting in two weeks at Google",
        ),
        ("en", "I work nights at a warehouse.", "I quit the warehouse job"),
        ("en", "I live in Toronto.", "We've moved to Vancouver!"),
        ("en", "I live in a flat in Glasgow.", "just bought a house in Edinburgh, moving in now"),
        ("en", "I'm engaged to Marco.", "Marco called off the engagement"),
        ("en", "I'm in a relationship with Priya.", "Priya and I aren't together anymore"),
        ("en", "I'm single.", "I'm seeing a guy from my climbing gym"),
        ("en", "I'm flying to Lisbon on Friday.", "Lisbon trip is cancelled, storm warning"),
        (
            "en",
            "I'm going to apply for a master's.",
            "decided not to apply for the master's after all",
        ),
        ("en", "We're having a barbecue on Sunday.", "the barbecue is postponed because of rain"),
        ("en", "I'm vegan.", "I eat eggs and cheese now, vegan was too hard"),
        ("en", "I don't drink alcohol.", "started drinking wine with dinner again"),
        ("en", "I run 5k every morning.", "I don't run anymore since the injury"),
        ("en", "I hate tea.", "I'm drinking green tea daily now"),
        ("ru", "Я работаю в Ростелекоме.", "уволилась из Ростелекома в прошлом месяце"),
        ("ru", "Я работаю в банке.", "с понедельника я безработная"),
        ("ru", "Я работаю дизайнером в агентстве.", "ушла из агентства во фриланс"),
        ("ru", "Я живу в Новосибирске.", "Перебрались в Томск, тут спокойнее"),
        ("ru", "Я живу в общежитии.", "съехала из общежития, сняла квартиру"),
        ("ru", "Я встречаюсь с Денисом.", "Денис и я больше не вместе"),
        ("ru", "Я замужем.", "развелась в прошлом году"),
        ("ru", "Летом поеду в Италию.", "в Италию не поеду, нет визы"),
        ("ru", "Хочу записаться на курсы английского.", "передумала насчёт курсов английского"),
        ("ru", "В пятницу у нас корпоратив.", "корпоратив отменили"),
        ("ru", "Я не ем мясо.", "теперь ем мясо, по совету врача"),
        ("ru", "Я курю электронки.", "бросил курить, месяц держусь"),
        ("en", "I work at Initech.", "I'm freelancing now, no more office politics"),
        ("en", "I work at a bank.", "took a job at a bakery, way less stress"),
        ("en", "I work for Globex.", "my new employer is way more relaxed than Globex"),
        ("en", "I'm a lawyer at a big firm.", "I'm not a lawyer anymore, I teach yoga full time"),
        ("en", "I live in Chicago.", "I'm back in my hometown, Dayton, for good"),
        ("en", "I live in Austin.", "our new place in Dallas is huge"),
        ("en", "I'm dating Ravi.", "Ravi and I called it quits"),
        ("en", "My boyfriend is Ollie.", "Ollie ended it last night"),
        ("en", "I'm flying to Japan in April.", "not flying to Japan after all, work got crazy"),
        (
            "en",
            "We're going to Greece in August.",
            "we're staying home this summer instead of Greece",
        ),
        ("en", "I drink every weekend.", "I've been sober for a year now"),
        (
            "en",
            "I'm vegetarian.",
            "had a burger for the first time in years and now I eat meat again",
        ),
        ("en", "I hate running.", "I've started running three times a week and I love it"),
        ("ru", "Я работаю в Сбере.", "теперь я фрилансер, сама себе начальник"),
        ("ru", "Я работаю учителем.", "нашла новую работу в банке, теперь работаю в банке"),
        ("ru", "Я работаю в Магните.", "меня взяли в Пятёрочку, выхожу в понедельник"),
        ("ru", "Я живу в Самаре.", "вернулась в родной Саратов"),
        ("ru", "Живу в Москве.", "мы теперь живём в Подмосковье"),
        ("ru", "Встречаюсь с Ильёй.", "у нас с Ильёй всё кончено"),
        ("ru", "Я замужем за Артёмом.", "Артём ушёл от меня"),
        ("ru", "Летом едем в Турцию.", "Турция накрылась, никуда не едем"),
        ("ru", "Собираюсь на марафон в сентябре.", "решила не бежать марафон"),
        ("ru", "Я пью каждые выходные.", "уже год не пью"),
        ("ru", "Я не ем сладкое.", "опять ем сладкое каждый день"),
        ("en", "I work as a chef at Rosa's.", "Rosa's closed down last month so I'm unemployed"),
        ("en", "I live in Bristol.", "we moved up north to Newcastle in the spring"),
        ("en", "I live with my parents.", "I've moved into my own flat!"),
        ("en", "I'm dating Kim.", "Kim broke up with me"),
        ("en", "I'm married to Joe.", "Joe and I separated in May"),
        ("en", "I'm single.", "I'm dating someone from work now"),
        (
            "en",
            "I'm running a half marathon in October.",
            "I'm not running the half in October anymore, injured",
        ),
        (
            "en",
            "We're getting a puppy next month.",
            "we decided against the puppy, the landlord said no",
        ),
        ("en", "I quit smoking.", "I'm smoking again, stressful month"),
        ("en", "I don't eat sugar.", "I eat chocolate every day now, whoops"),
        ("ru", "Я работаю в Газпроме.", "ушёл из Газпрома, теперь в Роснефти"),
        ("ru", "Я работаю официанткой.", "больше не официантка, теперь администратор"),
        ("ru", "Я живу в Уфе.", "Мы переехали в Казань в марте"),
        ("ru", "Я живу в общаге.", "теперь снимаю квартиру с подругой"),
        ("ru", "Встречаюсь с Никитой.", "Никита меня бросил по смс"),
        ("ru", "Я холост.", "женился в субботу!"),
        ("ru", "В мае летим в Египет.", "Египет отменили, летим в Турцию"),
        ("ru", "Собираюсь сдать на права летом.", "передумала сдавать на права"),
        ("ru", "Я бросил курить.", "снова курю, сорвался"),
        ("ru", "Я веганка.", "ем сыр теперь, веганство не моё"),
        (
            "en",
            "I'm going to Anna's wedding in June.",
            "I'm not going to Anna's wedding because my boss needs me that week",
        ),
        (
            "en",
            "I'm thinking of selling my car.",
            "not selling the car after all, my brother talked me out of it",
        ),
        (
            "en",
            "I'm planning to run the Berlin marathon in September.",
            "not running Berlin this year, my knee needs surgery",
        ),
        (
            "en",
            "We're flying to Japan in April.",
            "we're not doing Japan in April, money's too tight",
        ),
        (
            "en",
            "I'm going to take the job offer from Globex.",
            "not taking the Globex offer, the salary was a joke",
        ),
        ("en", "I'm going to the gym tonight.", "no gym for me tonight, totally wiped"),
        ("en", "I want to adopt a cat.", "not adopting a cat, my landlord said no pets"),
        (
            "en",
            "I'm going to visit my parents at Easter.",
            "not visiting my parents at Easter, flights are insane",
        ),
        (
            "ru",
            "Хочу поступить в магистратуру.",
            "в магистратуру поступать не буду, нашла хорошую работу",
        ),
        ("ru", "Собираюсь продать машину.", "машину продавать не стал, брат отговорил"),
        ("ru", "В субботу идём на концерт.", "на концерт не идём, у дочки температура"),
        (
            "ru",
            "На Новый год едем к родителям.",
            "к родителям на Новый год не едем, билеты очень дорогие",
        ),
        (
            "en",
            "I'm going to Anna's wedding in June.",
            "can't go to Anna's wedding anymore, I'll be abroad",
        ),
        (
            "en",
            "We're flying to Japan in April.",
            "we won't be going to Japan, the flights doubled",
        ),
        ("en", "We're flying to Japan in April.", "the Japan trip isn't happening"),
        (
            "en",
            "I'm planning to run the Berlin marathon in September.",
            "I'm skipping the Berlin marathon this year",
        ),
        (
            "en",
            "I have a dentist appointment on Thursday.",
            "the dentist cancelled on me, have to rebook",
        ),
        (
            "en",
            "I'm going to the concert on Friday.",
            "gave my concert ticket away, can't make Friday",
        ),
        (
            "en",
            "I'm starting a pottery class next month.",
            "the pottery class got scrapped, not enough people",
        ),
        ("en", "I work at Initech.", "I start at Globex on Monday, handed in my notice at Initech"),
        ("en", "I work as a nurse.", "I left nursing last year, I'm in admin now"),
        ("en", "I'm engaged to Tom.", "the engagement is off"),
        ("en", "I'm dating Lina.", "Lina is my ex now"),
        ("en", "I don't drink coffee.", "I'm on three coffees a day now"),
        ("en", "I'm vegetarian.", "I'm back on meat"),
        ("ru", "Летом поеду в Италию.", "с Италией не получится, отпуск не дали"),
        ("ru", "В субботу идём на свадьбу к Лене.", "свадьбу Лены перенесли на осень"),
        ("ru", "Собираюсь на марафон в сентябре.", "марафон пропущу, колено болит"),
        ("ru", "В четверг иду к стоматологу.", "стоматолог отменил приём"),
        ("ru", "Я работаю в Сбере.", "со следующей недели работаю в Альфе"),
        ("ru", "Я работаю медсестрой.", "ушла из медицины, теперь в продажах"),
        ("ru", "Встречаюсь с Антоном.", "Антон теперь мой бывший"),
        ("ru", "Я не пью кофе.", "подсела на кофе, три чашки в день"),
        ("ru", "Я вегетарианка.", "вернулась к мясу"),
        ("en", "I work at a hotel in town.", "I finally left the hotel, I'm working at a gym now"),
        ("en", "I'm a barista at Blue Door.", "quit Blue Door yesterday, done with coffee jobs"),
        ("en", "I work as an accountant.", "I retrained and I'm a nurse now"),
        ("en", "I live in Phoenix.", "we've lived in Tucson since March"),
        ("en", "I live in Oslo.", "relocating to Bergen was the best decision"),
        ("en", "I'm with Max.", "Max and I are over"),
        ("en", "I'm single.", "my girlfriend Ana says hi"),
        ("en", "I'm going skiing in Austria in February.", "Austria's off, we're broke"),
        ("en", "I'll finish my thesis by June.", "I've dropped my thesis, I'm leaving the PhD"),
        ("en", "I have a doctor's appointment on Tuesday.", "rescheduled the doctor to next month"),
        ("en", "I don't smoke.", "started smoking again during exams"),
        ("en", "I drink coffee every morning.", "no more coffee for me, it was wrecking my sleep"),
        ("ru", "Я работаю в салоне красоты.", "ушла из салона, открываю свой"),
        ("ru", "Я программист в Яндексе.", "теперь я программист в Озоне"),
        ("ru", "Я живу в Перми.", "Уже полгода живу в Екатеринбурге"),
        ("ru", "Живу с мужем в Туле.", "мы с мужем разошлись, я у мамы"),
        ("ru", "Встречаюсь с Кириллом.", "Кирилл теперь встречается с другой"),
        ("ru", "В августе едем на Байкал.", "Байкал отменился, едем в Крым"),
        (
            "ru",
            "Хочу купить квартиру в этом году.",
            "с покупкой квартиры решили подождать до следующего года",
        ),
        ("ru", "Я курю.", "не курю уже месяц"),
        ("ru", "Я не ем мясо.", "снова ем курицу"),
        ("en", "I work for Umbrella Inc.", "Umbrella laid me off on Friday"),
        ("en", "I live in Denver.", "we've been living in Boulder for a year now"),
        ("en", "I'm married to Sofia.", "Sofia and I are divorced now"),
        ("en", "I'm single.", "I have a girlfriend, Mei, we met at work"),
        (
            "en",
            "We're driving to Scotland on Saturday.",
            "Scotland's cancelled, the car broke down",
        ),
        ("en", "I'm going to quit sugar.", "decided not to quit sugar, life's too short"),
        ("en", "I'm a vegetarian.", "I'm eating fish again"),
        ("ru", "Я работаю в библиотеке.", "уволилась из библиотеки, иду в книжный"),
        ("ru", "Я живу в Воронеже.", "Теперь живём в Липецке"),
        ("ru", "Я замужем за Пашей.", "с Пашей мы разводимся"),
        ("ru", "В субботу едем на дачу.", "дача отменяется, льёт дождь"),
        ("ru", "Операция у меня 12-го.", "операцию перенесли на 20-е"),
        ("ru", "Я не пью.", "снова выпиваю по выходным"),
    ],
)
def test_contradiction(language: str, older: str, newer: str) -> None:
    assert _contradicts(language, older, newer)


@pytest.mark.parametrize(
    ("language", "older", "newer"),
    [
        ("en", "I work at Initech.", "Initech is sending me to a conference in Lisbon next month"),
        ("en", "I work at Initech.", "got promoted to team lead at Initech!"),
        ("en", "I live in Leeds.", "we moved to a bigger flat across town"),
        ("en", "I'm dating Lina.", "Lina's moving in with me next week"),
        (
            "en",
            "I'm planning to run the Berlin marathon in September.",
            "bought new running shoes for the marathon",
        ),
        ("en", "I run every morning before work.", "didn't run this morning, it was pouring"),
        (
            "en",
            "I don't drink alcohol.",
            "had a mocktail at the party, didn't miss the booze at all",
        ),
        ("en", "I work as a nurse at St. Mary's.", "I'm not working this weekend, finally a break"),
        ("en", "My girlfriend is Mia.", "Mia's not speaking to me today after our fight"),
        ("en", "I live in Berlin.", "I'm in Paris for work until Friday"),
        ("en", "I'm flying to Japan in April.", "can't wait for Japan, only three weeks left"),
        ("en", "I'm vegetarian.", "found a great new vegetarian place near work"),
        ("ru", "Я работаю в Яндексе.", "в Яндексе сегодня корпоратив"),
        ("ru", "Живу в Москве.", "в Москве опять пробки, два часа ехала"),
        ("ru", "Встречаюсь с Аней.", "Аня сегодня познакомила меня с родителями"),
        ("ru", "В апреле лечу в Турцию.", "купила купальник для поездки в Турцию"),
        ("ru", "Я не пью алкоголь.", "на свадьбе друга тоже не пила, все удивлялись"),
        (
            "ru",
            "Работаю менеджером в Сбере.",
            "больше не работаю по выходным, договорилась с начальником",
        ),
        ("ru", "Я курю.", "пытаюсь курить поменьше"),
        ("ru", "Я живу в Казани.", "на выходных была в Москве у сестры"),
        ("ru", "Собираюсь на концерт в субботу.", "уже купила билеты на концерт"),
        ("ru", "Бегаю по утрам.", "сегодня не бегала, проспала"),
        ("en", "I work at Initech.", "Initech's new office is so far from my place"),
        ("en", "I live in Madrid.", "my sister lives in Valencia now"),
        ("en", "I'm dating Sam.", "Sam is away in Rome this week, I miss him"),
        (
            "en",
            "I'm going to the Coldplay concert on Saturday.",
            "what should I wear to the Coldplay concert?",
        ),
        ("en", "I don't eat meat.", "my brother cooked steak and I just had the salad"),
        ("en", "I smoke when I'm stressed.", "work is stressful again, smoked three today"),
        ("en", "I work as a nurse.", "I don't work on Sundays anymore, new schedule"),
        ("en", "I live in London.", "went to Paris for the weekend, back in London now"),
        ("ru", "Я работаю в Тинькофф.", "в Тинькофф сегодня был тимбилдинг"),
        ("ru", "Я живу в Питере.", "в Питере опять дождь"),
        ("ru", "Встречаюсь с Олегом.", "Олег сегодня не звонил, странно"),
        ("ru", "Собираюсь в июле в Грузию.", "уже взяла билеты в Грузию"),
        ("ru", "Я не курю.", "коллеги курят, а я нет"),
        ("ru", "Я вегетарианец.", "нашёл новое вегетарианское кафе"),
        ("ru", "Я работаю в Сбере.", "в Сбере теперь нельзя работать из дома"),
        ("ru", "Я живу в Москве.", "на майские ездили в Казань"),
        ("en", "I work at Acme Corp.", "Acme is hiring, should I refer my friend?"),
        ("en", "I live in Toronto.", "Toronto winters are brutal this year"),
        ("en", "I'm engaged to Marco.", "Marco's parents are visiting next week"),
        ("en", "I'm flying to Lisbon on Friday.", "packing for Lisbon, so excited"),
        ("en", "I'm vegan.", "made vegan lasagna for my friends tonight"),
        ("en", "I don't drink alcohol.", "I don't drink, so I'm the designated driver again"),
        ("en", "I run 5k every morning.", "ran 8k this morning instead of 5"),
        ("en", "I work at Acme Corp.", "not working today, public holiday"),
        ("ru", "Я работаю в Ростелекоме.", "в Ростелекоме дали премию"),
        ("ru", "Я живу в Новосибирске.", "в Новосибирске минус тридцать"),
        ("ru", "Я встречаюсь с Денисом.", "Денис подарил мне цветы"),
        ("ru", "Летом поеду в Италию.", "учу итальянский к поездке"),
        ("ru", "Я не ем мясо.", "на ужин была рыба, мясо я не ем"),
        ("ru", "Я курю электронки.", "курю меньше, чем раньше"),
        ("ru", "В пятницу у нас корпоратив.", "не знаю, что надеть на корпоратив"),
        ("en", "I work at Initech.", "Initech just announced layoffs, I'm safe for now"),
        ("en", "I live in Chicago.", "flying back to Chicago tonight after the conference"),
        ("en", "I'm dating Ravi.", "Ravi forgot our anniversary, I'm upset"),
        (
            "en",
            "I'm flying to Japan in April.",
            "I'm not flying business class to Japan, too pricey",
        ),
        ("en", "I drink every weekend.", "didn't drink this weekend, was sick"),
        ("en", "I'm vegetarian.", "vegetarian for five years now and never felt better"),
        ("ru", "Я работаю в Сбере.", "в Сбере теперь новый начальник отдела"),
        ("ru", "Я живу в Самаре.", "в Самаре открыли новое метро"),
        ("ru", "Встречаюсь с Ильёй.", "Илья уехал в командировку на неделю"),
        ("ru", "Летом едем в Турцию.", "в Турцию не летим, а едем на машине"),
        ("ru", "Я пью каждые выходные.", "в эти выходные не пил, болел"),
        ("ru", "Я не ем сладкое.", "сладкое не ем уже полгода"),
        ("en", "I work at Deloitte.", "Deloitte is moving our team to a new floor"),
        ("en", "I live in Bristol.", "Bristol is so expensive these days"),
        ("en", "I'm dating Kim.", "Kim and I are going to Rome next month"),
        (
            "en",
            "I'm going to the Berlin conference next week.",
            "booked my hotel for the Berlin conference",
        ),
        ("en", "I quit smoking.", "three months smoke-free today!"),
        ("ru", "Я работаю в Газпроме.", "в Газпроме повысили зарплату"),
        ("ru", "Я живу в Уфе.", "в Уфе сегодня первый снег"),
        ("ru", "Встречаюсь с Никитой.", "Никита познакомил меня с мамой"),
        ("ru", "В мае летим в Египет.", "купили путёвку в Египет"),
        ("ru", "Я бросил курить.", "уже полгода не курю"),
        (
            "en",
            "We're flying to Japan in April.",
            "we're not flying through Dubai to Japan, there's a direct flight",
        ),
        ("en", "I'm going to Anna's wedding in June.", "I'm not bringing a date to Anna's wedding"),
        (
            "en",
            "I'm going to visit my parents at Easter.",
            "not telling my parents about the new job when I visit at Easter",
        ),
        ("en", "I want to adopt a cat.", "not sure what to name the cat I'm adopting"),
        ("ru", "Летом поеду в Италию.", "в Италию поеду не одна, а с сестрой"),
        (
            "ru",
            "В субботу идём на концерт.",
            "на концерт не поедем на машине, там негде парковаться",
        ),
        ("ru", "Планирую сделать ремонт на кухне.", "ремонт на кухне делаю не сам, нашёл бригаду"),
        ("ru", "На Новый год едем к родителям.", "к родителям едем не на поезде, а на машине"),
        ("en", "I'm going to Anna's wedding in June.", "bought a dress for Anna's wedding"),
        ("en", "I work at Initech.", "my Initech laptop died today"),
        ("en", "I live in Leeds.", "Leeds is gorgeous in the autumn"),
        ("en", "I'm dating Lina.", "Lina made me dinner, so sweet"),
        ("ru", "Летом поеду в Италию.", "учу итальянский, чтобы не теряться в поездке"),
        ("ru", "Я работаю в Сбере.", "в Сбере опять переезд офиса"),
        ("ru", "Встречаюсь с Антоном.", "Антон не отвечает весь день"),
        ("ru", "Я не пью кофе.", "на работе все пьют кофе, а я чай"),
        ("en", "I work at a hotel in town.", "the hotel is so busy this week"),
        ("en", "I live in Phoenix.", "Phoenix in August is unbearable"),
        ("en", "I'm with Max.", "Max is cooking tonight"),
        (
            "en",
            "I'm going skiing in Austria in February.",
            "renting skis for Austria is cheaper than flying with mine",
        ),
        ("en", "I drink coffee every morning.", "skipped my coffee this morning, running late"),
        ("ru", "Я работаю в салоне красоты.", "в салоне сегодня было много клиентов"),
        ("ru", "Я живу в Перми.", "в Перми снова снег"),
        ("ru", "Встречаюсь с Кириллом.", "Кирилл купил билеты в кино"),
        ("ru", "В августе едем на Байкал.", "собираю вещи на Байкал"),
        ("ru", "Я не ем мясо.", "мясо не ем, но рыбу иногда"),
        ("en", "I work for Umbrella Inc.", "Umbrella Inc is doing a hiring freeze"),
        ("en", "I'm married to Sofia.", "Sofia's birthday is on Sunday"),
        (
            "en",
            "We're driving to Scotland on Saturday.",
            "we're driving to Scotland via the Lake District",
        ),
        ("ru", "Я работаю в библиотеке.", "в библиотеке сегодня выставка"),
        ("ru", "Я живу в Воронеже.", "в Воронеже открыли новый парк"),
        # Resolve to go on is not a plan's end (LoCoMo: "I won't quit" had halved the weight of
        # every earlier "I'll keep going").
        ("en", "I'll keep plugging away and stay optimistic.", "I won't quit, I'll keep going!"),
        ("en", "I'll make sure to keep you updated.", "I won't let this bring me down."),
        ("en", "I'll keep pushing and working hard.", "I won't give up on my dreams."),
        ("en", "I go to the dance studio every week.", "I won't quit the dance studio, no way."),
        (
            "ru",
            "Буду дальше готовиться к экзамену.",
            "Не буду сдаваться, буду готовиться к экзамену!",
        ),
        # A plan's value ends with its sentence: "I'll call you back." plans no baking.
        (
            "en",
            "I'll call you back. Off to bake bread now!",
            "I dropped the bread off at my aunt's",
        ),
        # "dropped off" delivers; "any more" before a noun adds.
        (
            "en",
            "I'm going to bake a pie for the food bank.",
            "dropped off the pie at the food bank",
        ),
        (
            "en",
            "I'll send you the photos from the trip.",
            "do you want any more photos from the trip?",
        ),
        # Resolve, stock phrases and tag questions negate nothing.
        (
            "en",
            "I'm going to run the half marathon in May.",
            "I'm never giving up on the half marathon",
        ),
        ("en", "Pottery is fun, isn't it?", "I started a pottery class"),
        (
            "en",
            "I'm opening a bakery next year.",
            "opening a bakery isn't just a job now, it's a dream",
        ),
        ("ru", "Буду готовиться к марафону.", "Не сдамся, к марафону буду готова!"),
        # Someone else's or nobody's future, a past outcome, a thing not done yet, advice.
        ("en", "I'll train hard for the tournament.", "it won't be easy, the tournament is tough"),
        ("en", "I'll finish the novel this month.", "haven't finished the novel yet, almost there"),
        ("en", "I'll keep writing my blog.", "Don't be afraid to write, you told me once"),
        ("en", "I'll never forget the trip to Lisbon.", "I'll always remember the trip to Lisbon"),
        # Light words name no plan: "make" is not what "make sure to call mum" is about.
        ("en", "I'll make sure to call mum on Sunday.", "didn't make it to the final, oh well"),
        # Another plan near one put off is no plan taken up again; plant milk is not dairy.
        ("en", "The chess tournament got pushed back.", "I'm thinking of joining a chess club"),
        (
            "en",
            "I love oat milk in my coffee.",
            "since I'm vegan I'm only having dairy-free stuff now",
        ),
    ],
)
def test_same_topic_without_contradiction(language: str, older: str, newer: str) -> None:
    assert not _contradicts(language, older, newer)


def _habit(text: str, language: str = "en") -> list[tuple[bool, bool]]:
    """(does it, says it changed) of each habit claim."""
    return [(c.holds, c.change) for c in claims(text, cues(language)) if c.slot is Slot.HABIT]


def test_habit_polarity() -> None:
    assert _habit("I'm vegetarian") == [(False, False)]
    assert _habit("not vegan anymore") == [(True, True), (True, True)]  # meat and dairy
    assert _habit("I drink again now") == [(True, True)]
    assert _habit("I don't drink coffee") == [(False, False)]  # coffee, not alcohol
    assert _habit("бросила курить", "ru") == [(False, True)]
    assert _habit("снова ем мясо", "ru") == [(True, True)]


def test_a_habit_flip_needs_a_change() -> None:
    was = Claim(Slot.HABIT, True, frozenset({"running"}), False)
    assert not contradicts(Claim(Slot.HABIT, False, frozenset({"running"}), False), was)
    assert contradicts(Claim(Slot.HABIT, False, frozenset({"running"}), True), was)


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # A lapse: the habit done once after it was given up contradicts the giving up ...
        ("en", "I quit vaping at New Year.", "bought a vape at the petrol station, ugh", True),
        ("en", "I'm off sweets for Lent.", "had chocolate cake at work, caved", True),
        ("ru", "Я бросил курить в январе.", "закурил вчера на работе", True),
        ("ru", "Я не пью кофе из-за давления.", "выпила две чашки кофе у соседки", True),
        # ... unless only wanted or nearly done, done by someone else, or only mentioned.
        ("en", "I quit vaping at New Year.", "wanted a vape so badly today", False),
        ("en", "I quit vaping at New Year.", "my sister bought a vape yesterday", False),
        ("ru", "Я бросил курить в январе.", "чуть не закурил вчера", False),
        ("ru", "Я не пью кофе из-за давления.", "в этой кофейне классный интерьер", False),
    ],
)
def test_a_lapse_after_giving_up_a_habit(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Together again, made official, or done, said with the partner's name ...
        (
            "en",
            "I'm single since Jake and I broke up.",
            "Jake and I are giving it another go",
            True,
        ),
        ("en", "We're giving it another go, Jake and I.", "me and Jake are done. properly", True),
        ("en", "I'm single and not looking.", "me and Ollie are official now", True),
        ("ru", "Мы с Олей разошлись в марте.", "мы с Олей помирились!!", True),
        ("ru", "Я одна, ни с кем не встречаюсь.", "мы с Толей теперь вместе.", True),
        # The name first, as "X is my boyfriend": "гоша теперь официально мой парень".
        ("ru", "Я ни с кем не встречаюсь.", "гоша теперь официально мой парень", True),
        ("ru", "Я ни с кем не встречаюсь.", "Тимур теперь мой парень.", True),
        ("ru", "Я встречаюсь с Гошей.", "Гоша теперь официально мой парень", False),
        ("ru", "Я встречаюсь с Машей.", "она теперь моя девушка", False),  # a pronoun
        # The place first, spoken order: "из Бублика я ушла"; leaving a party is no job.
        ("ru", "Я работаю бариста в кофейне «Бублик».", "так что из Бублика я ушла", True),
        ("ru", "Я работаю учителем в школе.", "из школы уволилась наконец", True),
        ("ru", "Я работаю бариста в кофейне «Бублик».", "из гостей я ушла рано", False),
        # ... not an outing together, or another go at something else.
        ("ru", "Мы с Олей разошлись в марте.", "мы с Олей вместе ходили к юристу", False),
        ("en", "I'm single and not looking.", "giving the sourdough another go", False),
        # The first night in a new home is a move; a first night in a hotel is a trip.
        ("en", "I live in a condo in Liberty Village.", "first night in the new house", True),
        ("en", "I live in a condo in Liberty Village.", "first night at the Hilton hotel", False),
    ],
)
def test_a_relationship_resumed_made_official_or_done_by_name(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


def test_a_common_noun_ends_any_job_a_name_only_its_own() -> None:
    en = cues("en")
    (quit_cafe,) = [c for c in claims("I quit the café", en) if c.slot is Slot.JOB]
    (quit_globex,) = [c for c in claims("I quit Globex", en) if c.slot is Slot.JOB]
    (initech,) = [c for c in claims("I work at Initech", en) if c.slot is Slot.JOB]
    assert contradicts(quit_cafe, initech)
    assert not contradicts(quit_globex, initech)


def test_an_unnamed_new_home_replaces_an_arrangement_not_a_city() -> None:
    assert _contradicts("en", "I live with my parents.", "finally got my own place")
    assert not _contradicts("en", "I live in Leeds.", "finally got my own place")


def test_the_same_thing_on_another_day_is_a_move_one_more_is_not() -> None:
    older = "I have a dentist appointment on Thursday."
    assert _contradicts("en", older, "the dentist is now on Friday")
    assert not _contradicts("en", older, "now I also have a dentist checkup on Monday")
    assert not _contradicts("en", older, "the dentist is on Thursday at 3 now")


def test_a_negated_detail_leaves_the_plan() -> None:
    assert _contradicts("ru", "Летом поеду в Италию.", "в Италию не поеду, нет визы")
    assert not _contradicts("ru", "Летом поеду в Италию.", "в Италию поеду не одна")
    assert not _contradicts("ru", "Летом едем в Турцию.", "в Турцию не летим, а едем на машине")
    interview = "I have a job interview at Globex on March 18."
    assert not _contradicts("en", interview, "I have no time to prepare for the Globex interview")
    assert _contradicts("en", "I'm going to the gym tonight.", "no gym for me tonight")


def test_a_hedged_message_contradicts_nothing() -> None:
    assert not _contradicts("en", "I live in Austin.", "maybe we'll move to Denver next year")


def test_freelancing_is_a_job_of_its_own() -> None:
    assert _contradicts("en", "I work at Initech.", "I'm freelancing now")
    assert _contradicts("en", "I work as a freelance designer.", "I now work at Globex")
    assert _contradicts("ru", "Я фрилансер.", "теперь работаю в Сбере")


# Everyday phrasings added for issue 17 (notice served, a last shift, a job's own verb, "X has
# been home", parting idioms, marrying in the first person, colloquial plans given up) and the
# look-alikes each rule must leave alone. Written for these rules; not in the labelled set.
@pytest.mark.parametrize(
    ("language", "older", "newer", "contradicts"),
    [
        ("en", "I work at Initech.", "gave two weeks notice at Initech yesterday", True),
        ("en", "I work at a bakery.", "working out my notice at the bakery, then I'm free", True),
        ("en", "I'm a senior software developer at Hooli.", "did my final shift at Hooli", True),
        ("en", "I'm a primary school teacher.", "I don't teach anymore, I run a bike shop", True),
        ("en", "I teach at a high school.", "I don't teach on Fridays anymore", False),
        ("en", "I work at Initech.", "last week at Initech was insane, three launches", False),
        ("en", "I live in Austin.", "Denver has been home for a year now", True),
        ("en", "I live in Leeds.", "home is Manchester now, finally", True),
        ("en", "I live in Porto.", "Porto is home, love it here", False),
        ("en", "I'm dating Noah.", "Noah and I parted ways in the summer", True),
        ("en", "My girlfriend is Zoe.", "Zoe broke it off, I'm gutted", True),
        ("en", "I'm single.", "I'm getting married next spring!!", True),
        ("en", "I'm single.", "my sister is getting married next spring", False),
        ("en", "I'm single.", "been dating a girl from my book club", True),
        (
            "en",
            "I have a meeting with the bank on Monday.",
            "the bank moved my meeting to Wednesday",
            True,
        ),
        ("en", "I work at Northwind.", "Northwind moved the office to the new building", False),
        (
            "en",
            "I go to the gym every day.",
            "haven't been to the gym in a week, need to get back into it",
            False,
        ),
        ("ru", "Я работаю в Сбере.", "дорабатываю последние две недели в Сбере", True),
        (
            "ru",
            "Я работаю официанткой.",
            "отработала последнюю смену, больше в кафе ни ногой",
            True,
        ),
        ("ru", "Я работаю в Сбере.", "последнюю неделю в Сбере завал, не сплю", False),
        ("ru", "Я работаю журналистом.", "с журналистикой покончено, ухожу в пиар", True),
        ("ru", "Я живу в Омске.", "мы теперь в Томске, снимаем квартиру у центра", True),
        ("ru", "Я живу в Омске.", "я сейчас в Томске на конференции", False),
        ("ru", "Встречаюсь с Денисом.", "мы с Денисом уже не пара", True),
        ("ru", "Я одна.", "в августе выхожу замуж", True),
        ("ru", "Я одна.", "подруга выходит замуж в августе", False),
        ("ru", "Хочу пойти на курсы английского.", "на курсы английского забила, некогда", True),
        (
            "ru",
            "Планирую ремонт на кухне этим летом.",
            "махнула рукой на ремонт, потом как-нибудь",
            True,
        ),
        (
            "ru",
            "Хочу пойти на курсы английского.",
            "про курсы английского забыла спросить у Лены",
            False,
        ),
        ("ru", "Бегаю по утрам.", "неделю не бегала, надо вернуться к пробежкам", False),
    ],
)
def test_everyday_phrasings_of_a_change(
    language: str, older: str, newer: str, contradicts: bool
) -> None:
    assert _contradicts(language, older, newer) is contradicts


def test_an_end_of_one_part_leaves_the_job_but_a_last_shift_ends_it() -> None:
    english = cues("en")
    assert not [c for c in claims("I don't teach on weekends anymore", english) if not c.holds]
    assert [c for c in claims("did my last shift at the hospital", english) if not c.holds]


# The third round of issue 17: general rules, each with the look-alike it must leave alone.
# Whose claim (another person's job, home or habit is not the user's; a relationship ended by
# a named person ends it with that person only), ending verbs in every tense, a plan moved by
# any verb of moving, an employer's act on "me", a stay counted in months. Written for these
# rules; not in the labelled set.
@pytest.mark.parametrize(
    ("language", "older", "newer", "contradicts"),
    [
        ("en", "I live in Leeds.", "my parents moved to Spain last year", False),
        ("en", "I live in Leeds.", "my brother and I moved to York", True),
        ("en", "I live in Croydon.", "Officially moved to Brighton last week", True),
        ("en", "I work at Initech.", "Tom quit Initech last week, we're all shocked", False),
        ("en", "I work at Globex.", "Globex let me go on Friday", True),
        ("en", "I work at Initech.", "they let me go, just like that", True),
        ("en", "I work at Initech.", "Initech let Tom go today, scary", False),
        ("en", "I smoke a pack a day.", "my dad quit smoking, so proud of him", False),
        ("en", "I smoke a pack a day.", "quit smoking two weeks ago", True),
        ("en", "I'm married to Mark.", "my parents are divorcing after 30 years", False),
        ("en", "I'm dating Jake.", "me and jake are breaking up", True),
        ("en", "I'm dating Jake.", "my friends keep breaking up and getting back together", False),
        ("en", "I'm dating Lina.", "Anna broke up with her boyfriend, poor thing", False),
        ("en", "My girlfriend is Mia.", "she went back to her ex. I'm gutted", True),
        ("en", "I'm going to Anna's wedding in June.", "Anna called off the wedding", True),
        ("en", "We're going to Rome in May.", "the Rome trip isn't gonna happen", True),
        ("en", "We're going to Rome in May.", "it won't happen again, I promise", False),
        (
            "en",
            "I have a dentist appointment on Thursday.",
            "shifted the dentist to next week",
            True,
        ),
        (
            "en",
            "I'm planning to run the marathon in May.",
            "not running the marathon after all",
            True,
        ),
        (
            "en",
            "I'm planning to run the marathon in May.",
            "not doing the training plan for the marathon, just winging it",
            False,
        ),
        ("en", "I live with my parents.", "moved in with my girlfriend last month", True),
        ("ru", "Я живу в Казани.", "родители переехали в Сочи", False),
        ("ru", "Я живу в Казани.", "Наконец переехали в Сочи!", True),
        ("ru", "Я живу в Казани.", "третий год в Питере, привыкла", True),
        ("ru", "Я живу в Казани.", "вторую неделю в Турции, отдыхаем", False),
        ("ru", "Я живу в Перми.", "живу в центре теперь, очень удобно", False),
        ("ru", "Я работаю в Сбере.", "Коля уволился из Сбера", False),
        ("ru", "Я работаю в Сбере.", "уже две недели как в Озоне, коллеги классные", True),
        ("ru", "Я работаю в Сбере.", "я сейчас в Москве, в офисе на Тверской", False),
        ("ru", "Я курю.", "папа бросил курить", False),
        ("ru", "Курю полпачки в день.", "курить бросаю с понедельника", True),
        ("ru", "Я замужем за Олегом.", "сестра разводится с мужем", False),
        ("ru", "Я встречаюсь с Пашей.", "Оля рассталась с парнем", False),
        ("ru", "Я встречаюсь с Денисом.", "я опять одна", True),
        ("ru", "Я ни с кем не встречаюсь.", "завтра встречаюсь с Машей в кафе", False),
        ("ru", "Я ни с кем не встречаюсь.", "встречаюсь с одним парнем из универа", True),
        ("ru", "В июне летим в Грецию.", "Грецию отложили до осени", True),
        ("ru", "Надо позвонить маме.", "всё откладываю звонок маме", False),
        ("ru", "Я живу с родителями.", "съехались с парнем, снимаем однушку", True),
    ],
)
def test_whose_claim_and_changes_in_any_tense(
    language: str, older: str, newer: str, contradicts: bool
) -> None:
    assert _contradicts(language, older, newer) is contradicts


# Issue 33, changed plans: a reschedule said of the user ("moved me to"), in the passive, a
# plan called off "after all", a relapse ("so much for"), a plan that was "meant to" happen, a
# notice handed in. The other side of each: the same words where nothing changed.
@pytest.mark.parametrize(
    ("language", "older", "newer", "contradicts"),
    [
        ("en", "My dentist appointment is on Tuesday.", "The dentist moved me to Wednesday", True),
        ("en", "I'm seeing the dentist on Tuesday.", "Dentist got moved to Thursday.", True),
        ("en", "I'm seeing the dentist on Tuesday.", "My friend moved to Thursday Street", False),
        ("en", "We're getting a dog next month!", "Not getting the dog after all", True),
        ("en", "We're getting a dog next month!", "after all that rain the dog is muddy", False),
        (
            "en",
            "I've been off the booze for three months now.",
            "four pints on saturday, so much for being off the booze",
            True,
        ),
        ("en", "I'm getting a kitten this weekend.", "we were meant to be getting a kitten", True),
        ("en", "I work weekends at Little Crumb.", "handed my notice in at Little Crumb", True),
        ("en", "I work weekends at Little Crumb.", "Little Crumb is busy on weekends", False),
        ("en", "I live in Leeds.", "My friend Tom just moved to Manchester.", False),
        ("en", "I live in Leeds.", "The dentist moved me to Wednesday", False),
        ("ru", "Живу пока у Серёги на диване.", "съехал от Серёги, снял комнату", True),
        ("ru", "Я работаю в Сбере.", "заявление отдал в Сбере, две недели и свободен", True),
    ],
)
def test_changed_plans_and_their_other_side(
    language: str, older: str, newer: str, contradicts: bool
) -> None:
    assert _contradicts(language, older, newer) is contradicts


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        # A plan moved, said in the present ("переносим") and named in another word form
        # ("переезд" / "переезжаем") or with a typo ("скриниг"): the plan changed.
        ("Мы переезжаем в Красногорск 6 июня.", "переезд переносим на 13е, грузчики слились", True),
        ("Мой первый скрининг 20 февраля.", "скриниг перенесли на 24е, у врача больничный", True),
        ("В субботу еду с Бекой на Шымбулак.", "бека заболел так что шымбулак переносим", True),
        # Another thing moved: no word of the plan, even alike, is in the message.
        ("Мы переезжаем в Красногорск 6 июня.", "отпуск перенесли на май", False),
        ("Мой первый скрининг 20 февраля.", "стрижку переносим на вторник", False),
        # A weak marker does not read alike forms: "теперь" with "переезд" is no change.
        ("Мы переезжаем в Красногорск 6 июня.", "переезд теперь точно в июне", False),
    ],
)
def test_a_moved_plan_in_another_word_form(older: str, newer: str, expected: bool) -> None:
    assert _contradicts("ru", older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34, phrasings of the later train writers. A plan moved to another day ...
        (
            "en",
            "I'm flying to Chicago on February 13.",
            "im moving my chicago trip to the 20th",
            True,
        ),
        ("en", "I'm flying to Chicago on February 13.", "we're moving to Denver in May", False),
        (
            "en",
            "I have mediation with Shannon on February 3.",
            "mediation's been shifted to the 17th",
            True,
        ),
        (
            "en",
            "I have mediation with Shannon on February 3.",
            "the party's been shifted to the 17th",
            False,
        ),
        # ... a doubt the user quotes from someone else is not the user's hedge ...
        (
            "en",
            "I'm flying to Chicago on September 4.",
            "not going to chicago tmrw anymore. marcus said 'maybe we need a weekend apart'",
            True,
        ),
        (
            "en",
            "I'm flying to Chicago on September 4.",
            "maybe not going to chicago tmrw anymore",
            False,
        ),
        # ... a home rented with its size said, a partner made official with an adverb.
        (
            "en",
            "I rent a 3 bedroom apartment in Alief, Houston.",
            "First night in the new house in Pearland!!!",
            True,
        ),
        ("en", "I work at Initech.", "First night in the new house in Pearland!!!", False),
        ("en", "I'm single since my divorce.", "Grace is officially my girlfriend now", True),
        ("en", "I'm single since my divorce.", "Grace is officially my colleague now", False),
        ("ru", "7 августа еду в Казань к Насте.", "в Казань еду не 7-го а 14-го", True),
        ("ru", "7 августа еду в Казань к Насте.", "в Казань еду 7-го, как и планировали", False),
        (
            "ru",
            "В конце апреля еду в Питер на концерт.",
            "в Питер на концерт не еду, билеты подорожали",
            True,
        ),
        ("ru", "В конце апреля еду в Питер на концерт.", "в Питер на концерт еду с Машей", False),
        (
            "ru",
            "С 24 августа мы с Витей едем в санаторий в Кисловодск.",
            "отказались мы от Кисловодска",
            True,
        ),
        (
            "ru",
            "Мы с Витей живём на пятом этаже на улице Стара-Загора.",
            "Переехали!!! живём на Московском шоссе",
            True,
        ),
        ("ru", "Я работаю медсестрой.", "Переехали!!! живём на Московском шоссе", False),
        (
            "ru",
            "После расставания с Кириллом я одна и не хочу отношений.",
            "официально: встречаюсь с Гошей",
            True,
        ),
    ],
)
def test_later_writers_changes(language: str, older: str, newer: str, expected: bool) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34, more phrasings of the later train writers. A relapse owned up to in one
        # clause makes the clause that names the habit a lapse ...
        (
            "ru",
            "Я бросила курить 1 января.",
            "сорвалась. выкурила две сигареты за углом после смены",
            True,
        ),
        ("ru", "Я бросила курить 1 января.", "выкурила бы сейчас сигарету", False),
        ("en", "I quit smoking in January.", "caved. smoked two at the party", True),
        ("en", "I quit smoking in January.", "caved and bought the shoes", False),
        ("en", "I quit vaping on New Year's Day.", "vaped at maddie's birthday tonight", True),
        # ... a coffee shop is not coffee ...
        ("ru", "Я не пью кофе с марта.", "сорвалась. выкурила сигарету у кофейни", False),
        # ... a plan being moved to another day, said in the present ...
        (
            "en",
            "Ellie's 7th birthday party is on October 17.",
            "moving Ellie's party to the 24th, half her class is away",
            True,
        ),
        (
            "en",
            "Ellie's 7th birthday party is on October 17.",
            "moving the sofa to the other room",
            False,
        ),
        # ... an occasion with its day, moved or ended by one word of it, however long the
        # memory; the same words without a day need a fifth of them ...
        (
            "ru",
            "Отчётный концерт ансамбля 20 марта, я пою соло.",
            "концерт перенесли с 20-го на 3 апреля",
            True,
        ),
        (
            "ru",
            "Я пою соло в отчётном концерте ансамбля, волнуюсь до дрожи.",
            "концерт перенесли, трубы прорвало",
            False,
        ),
        # ... but not one told as over (LoCoMo: "the tournament got pushed back" after "I was
        # in the final last Saturday, and I won") ...
        (
            "en",
            "I was in the final of a big tournament last Saturday, and I won!",
            "My game tournament got pushed back, so I tried out some cooking.",
            False,
        ),
        (
            "en",
            "I was in the final of a big tournament last Saturday, and I won!",
            "Tough tournament, didn't make it to the finals.",
            False,
        ),
        (
            "ru",
            "Вчера был отчётный концерт ансамбля 20 марта, я пела соло.",
            "концерт перенесли на 3 апреля",
            False,
        ),
        # ... an occasion with its day and no other claim is a plan a negation ends ...
        (
            "en",
            "I'm entering my leeks in the Inverleith allotment show on August 29.",
            "Not entering the allotment show this year.",
            True,
        ),
        (
            "en",
            "I love the Inverleith allotment show, the leeks are the best part.",
            "Not entering the allotment show this year.",
            False,
        ),
        # ... and a home moved out of or into by its name.
        (
            "en",
            "I rent a two-bedroom unit in Mandurah.",
            "all moved out of the Mandurah unit, last load went this morning",
            True,
        ),
        (
            "en",
            "I rent a two-bedroom unit in Mandurah.",
            "all moved out of the Perth unit, last load went this morning",
            False,
        ),
        ("en", "I live with my mum in Baldivis.", "moved into the Rockingham place today!!", True),
        ("en", "I live with my mum in Baldivis.", "moved into the Baldivis place today!!", False),
    ],
)
def test_relapses_occasions_and_named_homes(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34, phrasings of the four writers p25-p28. Energy drinks are a habit of their
        # own, not alcohol ...
        ("en", "I've quit energy drinks.", "two Monsters last night. I folded", True),
        ("en", "I've quit energy drinks.", "two Monsters in the film last night", False),
        ("en", "I don't drink alcohol.", "I've been drinking energy drinks all week", False),
        ("ru", "Я не пью энергетики с января.", "сорвалась, выпила два энергетика", True),
        # ... a single cig, an opened bottle, getting drunk are lapses ...
        ("en", "I've quit smoking.", "had a cig yesterday. well two.", True),
        ("en", "I've quit smoking.", "had a chat yesterday. well two.", False),
        ("en", "I'm doing Dry January, no alcohol.", "so i opened the pinot tonight", True),
        ("en", "I'm doing Dry January, no alcohol.", "so i opened the post tonight", False),
        ("ru", "Не пью алкоголь с марта.", "вчера на юбилее напилась", True),
        ("ru", "Не пью алкоголь с марта.", "вчера на юбилее наелась", False),
        # ... a plan moved in the base form, knocked on the head, a set moved in Russian ...
        (
            "en",
            "My NREMT exam is on June 10 at 8am in Oak Brook.",
            "had to move the NREMT to June 17",
            True,
        ),
        ("en", "My NREMT exam is on June 10 in Oak Brook.", "had to move to Oak Park", False),
        (
            "en",
            "Martin and I are going to the Lake District on 18 July.",
            "we've knocked the Lakes on the head",
            True,
        ),
        (
            "ru",
            "20 июня мы играем на фестивале Томский Звук.",
            "наш сет на Томском Звуке переставили на 21-е",
            True,
        ),
        (
            "ru",
            "20 июня мы играем на фестивале Томский Звук.",
            "на Томском Звуке переставили сцену",
            False,
        ),
        # ... a change said with no object is of what the clause before names ...
        (
            "ru",
            "17 декабря иду на встречу выпускников, 30 лет выпуска.",
            "встреча выпускников через неделю, а я не иду, передумала.",
            True,
        ),
        (
            "ru",
            "17 декабря иду на встречу выпускников, 30 лет выпуска.",
            "погода через неделю ужасная, а я передумала",
            False,
        ),
        # ... a last shift opening the message, the first weekend somewhere after a move.
        ("en", "I work nights at Northgate.", "last shift at Northgate ever. 3 years.", True),
        ("en", "I work nights at Northgate.", "Tom's last shift at Northgate was sad", False),
        (
            "en",
            "I live with my grandma in Pilsen.",
            "we moved yesterday!! first weekend in Little Village",
            True,
        ),
        ("en", "I live with my grandma in Pilsen.", "first weekend in Little Village!!", False),
    ],
)
def test_the_four_later_writers_changes(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # A job taken up ends being out of work, whatever the employer; a job only told of
        # does not.
        (
            "en",
            "I got laid off from Northbeam and I'm looking for work.",
            "so i work at Crestmark now, new boss seems great",
            True,
        ),
        (
            "en",
            "I'm unemployed and job hunting since Brightloop laid me off.",
            "first day at Quillbyte done, the team is so nice",
            True,
        ),
        (
            "en",
            "I'm unemployed and job hunting since Brightloop laid me off.",
            "I worked at Quillbyte for two years before Brightloop",
            False,
        ),
        (
            "ru",
            "Я на пенсии и нигде не работаю.",
            "Я теперь работаю бухгалтером в ТСЖ на полставки.",
            True,
        ),
        ("ru", "Я на пенсии и нигде не работаю.", "Я работала бухгалтером тридцать лет.", False),
        # Staying at someone's place is a home that moving out of their place ends.
        ("ru", "Живу пока у Серёги на диване.", "съехал от Серёги, снял комнату", True),
        ("en", "I'm staying at Tom's for now.", "moved out of Tom's place last week", True),
        ("en", "I'm staying at Tom's for now.", "Tom's moving to Leeds next month", False),
        # A day or a month shared names no subject; a person shared names an occasion only.
        (
            "en",
            "I'm flying to Lagos on June 12 to surprise my mother.",
            "I resigned from MedPoint today. Last day is June 19",
            False,
        ),
        (
            "en",
            "I'm flying to Lagos on June 12 to surprise my mother.",
            "the Lagos trip is cancelled, mama has covid",
            True,
        ),
        (
            "ru",
            "Я временно живу у друга Кости.",
            "шерегеш отменяется, Костя сломал руку на работе",
            False,
        ),
        (
            "ru",
            "В субботу ко мне приезжает сын Андрей.",
            "андрей перенёс приезд на 31 октября, у него аврал",
            True,
        ),
        # "now" shared is no subject; a bare number is no day.
        (
            "en",
            "I'm single and not looking to date right now.",
            "I'm running tamale day because abuela's hands shake too much now",
            False,
        ),
        (
            "en",
            "I'm a staff nurse on Ward 9 at Ashgrove.",
            "we're official now, he asked me outside Ashgrove like a 12 year old",
            False,
        ),
        # Snow dumped on a pass, a user who folded, a half of a team cut: no ends of theirs.
        (
            "en",
            "I'm in a relationship with Marcus.",
            "leavenworth is off, the pass is getting dumped on",
            False,
        ),
        ("en", "I'm in a relationship with Marcus.", "Marcus dumped me last night", True),
        ("en", "I work nights at Northgate.", "two Monsters on shift and I folded", False),
        ("en", "I work nights at Northgate.", "Northgate folded, 200 of us out", True),
        (
            "ru",
            "Я работаю тимлидом в Сибтехе.",
            "Никита пишет что в Сибтехе сократили половину команды",
            False,
        ),
        ("ru", "Я работаю тимлидом в Сибтехе.", "всё, сократили. ищу работу", True),
    ],
)
def test_changes_that_hold_beside_other_memories(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # A time word is no shared subject.
        (
            "en",
            "I play netball on Monday nights.",
            "jake bailed on me last night, his mate needed help",
            False,
        ),
        # The marker's own verb is none either ...
        (
            "ru",
            "Экзамен по истории искусств перенесли на 15 января.",
            "поездку к маме перенесла на 5 июля",
            False,
        ),
        (
            "ru",
            "Экзамен по истории искусств перенесли на 15 января.",
            "экзамен по истории опять перенесли, теперь на 22-е",
            True,
        ),
        # ... nor a light word when the clause names its own object.
        (
            "en",
            "I'm going to Leavenworth with Tasha on March 28.",
            "not going to chicago tmrw anymore",
            False,
        ),
        (
            "en",
            "I'm going to Leavenworth with Tasha on March 28.",
            "not going anymore, the pass is closed",
            True,
        ),
        # A reason is a clause of its own.
        (
            "en",
            "I work as a line cook at Salt & Ember.",
            "moms birthday lunch got moved to the 27th cuz marisol has to work",
            False,
        ),
        # A person shared names an occasion only as the one who changed it.
        (
            "en",
            "I'm taking Ellie camping at Lane Poole on September 26.",
            "moving Ellie's party to the 24th, half her class is away",
            False,
        ),
        # A simile is no divorce; a part of the job is no job.
        (
            "en",
            "I'm back together with Jake.",
            "eating coco pops in bed like a divorced dad",
            False,
        ),
        ("en", "I'm back together with Jake.", "Jake and I are divorcing", True),
        ("en", "I work at Crestmark.", "no more on-call at Crestmark, linda took us off", False),
        (
            "ru",
            "Я работаю engineering manager в Balkan Labs.",
            "в Balkan Labs я больше не на дежурствах",
            False,
        ),
    ],
)
def test_what_names_no_shared_subject(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Habits people often give up: takeaways, chewing tobacco, eating at night.
        (
            "en",
            "I've given up buying takeaways.",
            "broke the takeaway ban last night, chipper on the way home",
            True,
        ),
        (
            "en",
            "I've given up buying takeaways.",
            "havent had a takeaway since easter, saving every cent",
            False,
        ),
        (
            "en",
            "I quit dipping Copenhagen on New Year's Day.",
            "bought a can of Cope and had a dip",
            True,
        ),
        (
            "en",
            "I quit dipping Copenhagen on New Year's Day.",
            "had a dip in the lake, freezing",
            False,
        ),
        (
            "ru",
            "Я не ем после восьми вечера.",
            "вчера ночью после суток съела полкастрюли плова",
            True,
        ),
        (
            "ru",
            "Я не ем после восьми вечера.",
            "вчера после суток съела полкастрюли плова в обед",
            False,
        ),
        # A move naming both days, a plan scrapped, a Russian plan that "moves" to a month.
        (
            "en",
            "I'm flying home to Dublin on Friday November 20.",
            "moved my flight home from the 20th to the 27th, client dinner",
            True,
        ),
        (
            "en",
            "I'm taking the grandkids to Silver Dollar City in late July.",
            "scrapping the Silver Dollar City trip, Lily needs her tonsils out",
            True,
        ),
        (
            "ru",
            "В августе едем всей семьёй в Анапу.",
            "Анапа переезжает на сентябрь, отпуск не дали",
            True,
        ),
        # A proper name the memory gives is its subject beside a strong marker, however long.
        (
            "en",
            "Donna and I are taking the grandkids to Branson over spring break.",
            "the kids got softball every Saturday now so we called off Branson",
            True,
        ),
        (
            "en",
            "Donna and I are taking the grandkids to Branson over spring break.",
            "we called off the yard sale, rain all weekend",
            False,
        ),
        # A change with no object is of what its sentence names before it.
        (
            "ru",
            "12 августа иду к стоматологу удалять зуб.",
            "стоматолог позвонил, 12-го не может, перенёс на 19 августа",
            True,
        ),
        # A first or last day at a job, going out with someone.
        (
            "en",
            "I work dispatch at Red Dirt Freight.",
            "First day as lead dispatcher at Cimarron Logistics today",
            True,
        ),
        (
            "en",
            "I'm a junior solicitor at Dunleavy Hart in Dublin.",
            "last day at Dunleavy Hart today. handed back the laptop",
            True,
        ),
        (
            "en",
            "I'm a junior solicitor at Dunleavy Hart in Dublin.",
            "last day at the beach today, back to Dunleavy Hart on monday",
            False,
        ),
        (
            "en",
            "I'm single since breaking up with Cian.",
            "ok its official, me and Tom are going out.",
            True,
        ),
        (
            "en",
            "I'm single since breaking up with Cian.",
            "me and Tom are going out tonight for pints",
            False,
        ),
        # A day is no plan's subject; a name after a preposition is no changer.
        (
            "en",
            "Cian is coming up to Dublin on Saturday the 14th.",
            "not going to Galway on saturday anymore, work",
            False,
        ),
        (
            "ru",
            "В субботу 11 апреля едем с Наташей к её родителям.",
            "переезд к Наташе сдвигаем на 7 ноября, у неё аврал",
            False,
        ),
    ],
)
def test_habits_moves_and_days_read_from_later_writers(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Beer in every case; "done with"; "off" only as a state, not "a dip off Bobby".
        (
            "ru",
            "Пью пиво почти каждый вечер после работы.",
            "Всё, завязываю с ежедневным пивом.",
            True,
        ),
        (
            "en",
            "I dip Copenhagen, about a can a day.",
            "I'm done with dip, threw my last can out",
            True,
        ),
        (
            "en",
            "I've been off dip since early March.",
            "bummed a dip off Bobby from work. first one in 5 weeks",
            True,
        ),
        ("en", "I've been off dip since early March.", "5 weeks off dip now, feeling good", False),
        # A job word no more; a first night in a home; one's own flat and where.
        (
            "en",
            "I'm a truck driver for Red Dirt.",
            "aint a driver no more, dispatch desk now",
            True,
        ),
        ("en", "I'm a truck driver for Red Dirt.", "my brother aint a driver no more", False),
        (
            "en",
            "Donna and I rent a brick house in Tulsa.",
            "first night sleeping in our own house in Broken Arrow tonight",
            True,
        ),
        ("en", "I live in Leeds.", "first night in Lisbon!! the hotel is gorgeous", False),
        (
            "ru",
            "Живу с мамой в её двушке на Чернышевского.",
            "переехал!! теперь у меня своя однушка в Бывалово",
            True,
        ),
    ],
)
def test_states_said_in_everyday_words(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a change said with no object, opening its sentence, is of what the sentence
        # before it names; not when that sentence names something else.
        (
            "ru",
            "12 марта в 16:00 иду к стоматологу.",
            "стоматолог звонила, в четверг не сможет, сама ЗАБОЛЕЛА. перенесли на 17е",
            True,
        ),
        (
            "ru",
            "12 марта в 16:00 иду к стоматологу.",
            "мама звонила, всё хорошо. перенесли на 17е",
            False,
        ),
        # A plan put back to another day; not a thing put back in its place.
        (
            "en",
            "The grading inspection is on 17 July.",
            "inspection's been put back to the 28th, the inspector's off sick",
            True,
        ),
        ("en", "The grading inspection is on 17 July.", "put back the inspection folder", False),
        # The first drink since a date is a lapse; none since a date keeps the habit.
        (
            "en",
            "I haven't had a drink since Hogmanay.",
            "I had two gins. First drink since January and by God it was good.",
            True,
        ),
        (
            "en",
            "I haven't had a drink since Hogmanay.",
            "haven't touched a drink since January, feeling great",
            False,
        ),
        # Done with an employer.
        ("en", "I work as a tutor at Kumon in Edison.", "I'm done with Kumon as of friday!", True),
        ("en", "I work as a tutor at Kumon in Edison.", "I'm done with Netflix for a month", False),
    ],
)
def test_changes_said_apart_put_back_first_since_and_done_with(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: the user's move, done, with the new home unnamed, ends the home held before ...
        ("ru", "Мы снимаем однушку на Соколе.", "ПЕРЕЕХАЛИ. Болит все, коробки до потолка", True),
        ("en", "I live with my roommate Marco on East Riverside.",
         "moved in w dani today!!! boxes everywhere", True),
        ("en", "I live in the house on Forrer Blvd in Dayton.", "Got the keys to the condo today!",
         True),
        ("en", "I'm living at my mum's in Leeds for the summer.",
         "officially moved into my fremont studio today!!!", True),
        # ... but not a move still ahead, someone else's, or a meeting moved ...
        ("ru", "В пятницу переезжаем в свою квартиру на Академическом.", "ПЕРЕЕХАЛИ", False),
        ("ru", "Мы живем в Красногорске.", "Даша переехала в Питер", False),
        ("en", "I live in Leeds.", "they moved the meeting to friday", False),
        ("en", "I live in Leeds.", "the keys to the shed are lost again", False),
        # ... and owning up to a relapse makes the habit done again, however it is named.
        ("en", "I haven't had a drink since New Year's.",
         "4 beers at Omar's bbq. so much for being off the booze lol", True),
        ("en", "I haven't had a drink since New Year's.",
         "4 coffees at Omar's bbq. so much for the diet lol", False),
        ("en", "I gave up smoking three years ago.",
         "had two fags outside tonight. three years off them and i caved", True),
        ("en", "I gave up smoking three years ago.", "Tom had two fags outside tonight", False),
        ("ru", "Я не пью кофе с января.", "выпила сегодня два капучино. прощай, месяц без кофе",
         True),
        ("ru", "Я не ем сладкое с Нового года.", "Съела два куска. Вот тебе и без сладкого", True),
        ("ru", "Я не ем сладкое с Нового года.", "прощай, отпуск. держусь без сладкого", False),
    ],
)  # fmt: skip
def test_moves_done_and_relapses_owned_up_to(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a partner after "I'm single", said as chat says it: a contraction, a
        # lowercase name, "gf", "ive got", "a thing", a patronymic, "снова" ...
        ("en", "I'm single right now.", "Valeria's officially my girlfriend 🥹", True),
        ("en", "I'm single since Leah and I broke up.", "anika is officially my gf 🥹", True),
        ("en", "I'm single right now.", "im dating leah now?? like officially", True),
        ("en", "I'm single right now.", "so kirra and i are officially a thing", True),
        ("en", "I'm single since my divorce.", "so yeah, ive got a girlfriend at 55", True),
        ("ru", "Мы с Настей расстались в мае.", "короче Настя снова моя девушка", True),
        ("ru", "Я вдовец, живу один и ни с кем не встречаюсь.",
         "Мы с Тамарой Ивановной теперь вместе.", True),
        # ... but not a pronoun, another's partner or a plan with a friend.
        ("en", "I'm single right now.", "she is officially my favourite colleague", False),
        ("en", "I'm single right now.", "she's officially my gf's best friend lol", False),
        ("en", "I'm single right now.", "tom and i are officially going to Rome", False),
    ],
)  # fmt: skip
def test_partners_said_in_chat_words(language: str, older: str, newer: str, expected: bool) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a job ended in everyday words: notice given to someone, a resignation handed
        # to the boss, a last shift typed in lowercase ...
        ("en", "I work as sous chef at Nopal Kitchen.", "gave renata my notice today", True),
        ("en", "I work FIFO as an electrician for Tanami Electrical.",
         "handed my notice in to Tommo today", True),
        ("en", "I work as a line cook at Salt & Ember.",
         "last shift at salt and ember tonight and kev stopped by", True),
        ("ru", "Я работаю дальнобойщиком в УралТрансЛогистик.",
         "заявление отдал шефу Андрею Палычу, орал минут десять", True),
        ("ru", "Я работаю маркетологом в агентстве Лампа.",
         "Все, написала заявление об увольнении из Лампы.", True),
        # ... driving for a living is a job ...
        ("en", "I drive a MARTA bus on route 121, day shift.",
         "so i handed in my notice at the garage today", True),
        # ... but not a note passed on, an application, or another's notice.
        ("en", "I work as sous chef at Nopal Kitchen.", "gave renata my number today", False),
        ("ru", "Я работаю маркетологом в агентстве Лампа.", "подала заявление на визу", False),
        ("en", "I drive a MARTA bus on route 121.", "Keisha handed in her notice today", False),
    ],
)  # fmt: skip
def test_jobs_ended_in_everyday_words(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: an occasion's own day of the month beside a change names it, in whatever
        # words or language the older memory uses ...
        ("ru", "Olya and I are going to a concert on October 17.",
         "мы с олей на концерт 17-го не идём, его отменили", True),
        ("ru", "Улетаю в Ереван 1 июня.", "перенёс вылет с 1 июня на 3е, Араик попросил", True),
        ("ru", "Olya and I are going to a concert on October 17.",
         "мы с олей на концерт 18-го не идём, его отменили", False),
        ("ru", "Olya and I are going to a concert on October 17.",
         "мы с олей 17-го идём на концерт, ура", False),
        # ... a move from a written day ...
        ("en", "My driving test is on 14 April.",
         "my driving test is moved from 14th april to 20 may", True),
        # ... and "I'm out for", "X's off".
        ("en", "I'm flying to Vegas on August 21 for Trey's 40th.",
         "had to tell TREY im out for vegas", True),
        ("en", "I'm flying to Vegas on August 21 for Trey's 40th.",
         "had to tell TREY im out of vegas by monday", False),
        ("en", "We're going to Whitby on Saturday.", "Whitby's off. the car died", True),
        ("en", "We're going to Whitby on Saturday.", "Tom's off. he's ill", False),
    ],
)  # fmt: skip
def test_occasions_by_their_day_and_plans_called_off_in_chat(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a plan negated after a filler ("ok", "officially", "decided") ...
        ("en", "I'm running the Scotiabank half marathon on October 18 with Jules.",
         "ok officially not doing the scotiabank half. shin splints", True),
        ("en", "We're applying to the Northbridge accelerator by April 24.",
         "decided we're NOT doing northbridge. 7% is way too much", True),
        ("en", "We're applying to the Northbridge accelerator by April 24.",
         "decided we're NOT doing the demo video for northbridge", False),
        # ... an occasion moved with no date beside the marker, or moved from its own weekday ...
        ("ru", "Наш второй концерт в Подземке 18 апреля.",
         "концерт сдвинули, в тот день там корпоратив", True),
        ("ru", "Наш второй концерт в Подземке 18 апреля.", "шкаф сдвинули, теперь места больше",
         False),
        ("ru", "В субботу 19 сентября репетиция с новой басисткой Машей.",
         "репу с машей перенесли с субботы на воскресенье", True),
        ("ru", "В субботу 19 сентября репетиция с новой басисткой Машей.",
         "репу с машей перенесли с пятницы на воскресенье", False),
        # ... a home rented or shared somewhere, and a new one ...
        ("en", "I rent a flat above a chip shop in Erdington.",
         "FIRST NIGHT in the Stirchley house. no curtains", True),
        ("en", "I share a flat in Walthamstow with Chloe and Jess.",
         "we live in Leyton now, me and Callum", True),
        ("en", "I share a flat in Walthamstow with Chloe and Jess.",
         "we live in Walthamstow still, me and Callum", False),
        # ... a last day at a workplace typed in lowercase (not at work or school) ...
        ("en", "I work for Calder Property Services as a maintenance plumber.",
         "LAST DAY at calder today. card and a bottle of whisky", True),
        ("en", "I work for Calder Property Services as a maintenance plumber.",
         "last day at work before the holidays, whisky time", False),
        # ... and a side job ("подрабатываю") ended.
        ("ru", "Я подрабатываю в техникуме ОТЖТ, веду практику у путейцев.",
         "Написал сегодня заявление по собственному в техникуме.", True),
        ("ru", "Я подрабатываю в техникуме ОТЖТ, веду практику у путейцев.",
         "Написал сегодня заявление на отпуск в техникуме.", False),
    ],
)  # fmt: skip
def test_plans_after_fillers_occasions_by_weekday_homes_rented_and_last_days(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a relapse owned up to with the habit named where no clause rule reads it
        # is the habit an older memory says was given up ...
        ("ru", "Не курю с марта.", "сорвался. пачку за вечер скурил. да пофег уже", True),
        ("ru", "Курю полпачки в день.", "сорвался. пачку за вечер скурил", False),
        # ... but not a temper lost, nor another's relapse ...
        ("ru", "Не курю с марта.", "сорвался на сына вчера, стыдно", False),
        ("ru", "Не курю с марта.", "Серёга сорвался. пачку за вечер скурил", False),
        # ... and a habit given up once more ends the one taken up again.
        ("ru", "Снова курю, где-то полпачки в день.", "неделю назад опять бросил. пока держусь",
         True),
        ("ru", "Не курю с марта.", "неделю назад опять бросил. пока держусь", False),
        ("en", "I'm vaping again.", "threw it in the trash, round 2 of quitting", True),
        # An older memory in another language is read in its own.
        ("ru", "I smoke again since relapsing in May.", "снова не курю, уже месяц держусь", True),
        ("ru", "I smoke again since relapsing in May.", "снова курю, уже месяц", False),
    ],
)  # fmt: skip
def test_unnamed_relapses_habits_given_up_again_and_memories_in_another_language(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: whoever moves an occasion, the user's occasion moves ...
        ("en", "Extra choir rehearsal for the harvest service is on 16 July.",
         "Femi has moved the extra rehearsal from the 16th to the 18th", True),
        # ... while another's change of a state stays theirs ...
        ("en", "I work Saturday shifts at a warehouse in Spandau.",
         "the guy Dariusz quit the warehouse today", False),
        # ... moved "to a week from today", or with an object no word spells ("1:1").
        ("en", "The 3rd year parent-teacher meeting is on Thursday 12 March.",
         "parent teacher meeting is moved to a week from today", True),
        ("en", "My 1:1 with Rahul is on Tuesday.", "rahul pushed our 1:1 to thursday", True),
        ("en", "My 1:1 with Rahul is on Tuesday.", "rahul pushed our 1:1 hard today", False),
    ],
)  # fmt: skip
def test_occasions_moved_by_anyone_to_a_week_from_today(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a word clipped as chat clips it names the occasion ("собес") ...
        ("ru", "12 мая у меня собеседование в Хлебторге.", "собес перенесли на 13е", True),
        ("ru", "12 мая у меня собеседование в Хлебторге.", "собаку перенесли на диван", False),
        # ... "переношу", "двигаем на неделю" move one, and its own day anywhere in the
        # sentence names it.
        ("ru", "В июле лечу в Гамбург к Андрею.", "Гамбург переношу на сентябрь", True),
        ("ru", "14 марта лечу в Белград с Катей и Тимофеем на неделю.",
         "из-за релиза разведку двигаем на неделю, летим 21 марта вместо 14-го", True),
        ("ru", "14 марта лечу в Белград с Катей и Тимофеем на неделю.",
         "из-за релиза разведку двигаем на неделю, летим 21 марта вместо 15-го", False),
    ],
)  # fmt: skip
def test_clipped_words_and_the_days_of_a_moved_occasion(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


_OCCASIONS = [
    ("rotto", "I'm taking Ellie to Rottnest on March 28."),
    ("dentist", "I have a dentist appointment on April 2."),
    ("job", "I work at Tanami Electrical."),
]


def _guessed(text: str, likeness: dict[str, float], language: str = "en") -> tuple[str, ...]:
    by_content = {content: likeness.get(ref) for ref, content in _OCCASIONS}
    return contradicted(text, _OCCASIONS, cues(language), similar=by_content.get, min_similar=0.27)


def test_a_plan_changed_in_other_words_ends_the_closest_occasion_at_the_threshold() -> None:
    # Issue 34: "Rotto's off" shares no word with "Rottnest": the closest upcoming occasion by
    # embedding, at `min_similar` or more, is the one called off ...
    text = "Rotto's off. ferry's booked out"
    assert _guessed(text, {"rotto": 0.27, "dentist": 0.1}) == ("rotto",)
    assert _guessed(text, {"rotto": 0.26, "dentist": 0.1}) == ()
    assert _guessed(text, {"rotto": 0.3, "dentist": 0.4}) == ("dentist",)
    # ... never a state (a job), and only where the message says a plan changed ...
    assert _guessed(text, {"job": 0.9}) == ()
    assert _guessed("ferry's booked out, Ellie's thrilled", {"rotto": 0.9}) == ()
    # ... and not where the words name the occasion already, nor for a relapse.
    assert _guessed("the dentist cancelled, moved to May", {"rotto": 0.9}) == ("dentist",)
    assert _guessed("сорвался. вчера полпачки скурил", {"rotto": 0.9}, "ru") == ()
    # Without embeddings, the rules alone.
    assert contradicted(text, _OCCASIONS, cues("en")) == ()


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a job taken up in everyday Russian ends the one held before, or being
        # out of work ...
        ("ru", "Я сейчас без работы, ищу место прораба.",
         "взяли в СК Магистраль прорабом, выхожу в пн!!", True),
        ("ru", "Я работаю поваром в ресторане Тайга.", "первый день в Нуре. кухня огонь", True),
        ("ru", "Я работаю курьером в Доставкине.", "с понедельника выхожу лаборантом в ИЯФ", True),
        # ... not a first day somewhere that is no workplace.
        ("ru", "Я работаю курьером в Доставкине.", "первый день в Турции, море супер", False),
    ],
)  # fmt: skip
def test_russian_jobs_taken_up_in_everyday_words(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


def test_a_move_to_a_place_is_no_changed_plan() -> None:
    # Issue 34: "moved to Manchester" (a home, another's) guesses no occasion; "moved to
    # Wednesday" does.
    assert _guessed("My friend Tom just moved to Manchester.", {"dentist": 0.9}) == ()
    assert _guessed("they moved it to Wednesday, annoying", {"dentist": 0.9}) == ("dentist",)


@pytest.mark.parametrize(
    ("newer", "expected"),
    [
        # Another's move, named in lowercase (a first name) or by a bare relation word ...
        ("devon is moving to Austin to be with his girlfriend", False),
        ("mom is moving to Austin", False),
        ("sister just moved to Glasgow", False),
        # ... leaves the user's home; the user's own move, with no subject, changes it.
        ("finally moving to Austin next month", True),
        ("just moved to Austin!!", True),
    ],
)
def test_a_lowercase_name_or_bare_relation_is_another_subject(newer: str, expected: bool) -> None:
    assert _contradicts("en", "I live in Capitol Hill, Denver.", newer) is expected


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        # "no heating" negates a thing the older memory does not name: no flip of its state ...
        (
            "I live in an apartment in Capitol Hill, Denver.",
            "the apartment in Capitol Hill has no heating again, freezing",
            False,
        ),
        # ... while a "no" of what it names, or "no longer", still flips it.
        ("I have a car, an old Corolla.", "no car again, sold the Corolla", True),
        ("I run every morning before work.", "I no longer run every morning", True),
    ],
)
def test_a_no_of_another_thing_flips_nothing(older: str, newer: str, expected: bool) -> None:
    assert _contradicts("en", older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (p57-p60 once in train): "vape free" is without the habit ...
        ("en", "I vape again, I started after a bad day at work in May.",
         "officially vape free again, not had a single puff this month", True),
        ("en", "I vape again, I started after a bad day at work in May.",
         "officially vaping again, a puff here and there", False),
        # ... soft drinks are a habit of their own, not alcohol ...
        ("en", "I gave up Mountain Dew in January.",
         "had 3 dews today, guess im back on the dew", True),
        ("en", "I don't drink alcohol.", "had 3 dews today, guess im back on the dew", False),
        # ... the last of it thrown out gives it up ("day 1 AGAIN") ...
        ("en", "I'm back on chewing tobacco since May.",
         "threw my last can of cope in the burn barrel this morning. day 1 AGAIN", True),
        ("en", "I'm back on chewing tobacco since May.",
         "bought a new can of cope this morning", False),
        # ... another's habit, "becca from work", is hers ...
        ("en", "I quit vaping at the start of the year.",
         "becca from work vaped in the staff loo today", False),
        ("en", "I quit vaping at the start of the year.", "i vaped in the staff loo today", True),
        # ... and snus is a habit in Russian too: relapsed, given up again, a month without it.
        ("ru", "Я бросил снюс 1 января и держусь.",
         "СОРВАЛСЯ. на ночной напарник угостил и я закинул", True),
        ("ru", "После срыва я опять закидываю снюс на сменах.", "всё, снова не употребляю", True),
        ("ru", "Я снова закидываю снюс на сменах.", "месяц чистый без снюса", True),
        ("ru", "Я снова закидываю снюс на сменах.", "месяц закидываю снюс каждый день", False),
    ],
)  # fmt: skip
def test_habits_without_their_names_and_snus(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a break-up the people reader reads ends the relationship with that person ...
        ("en", "I'm in a relationship with Nadia.",
         "nadia and i called it a day 2 days ago. mutual-ish", True),
        ("en", "I'm in a relationship with Owen, we've been together four years.",
         "so owen and i are officialy done. he said it after christmas", True),
        ("en", "I'm seeing Rory.", "so thats that. rory ended it. said hes not ready", True),
        # ... not an evening called off, nor a meeting someone ended.
        ("en", "I'm in a relationship with Nadia.",
         "nadia and i called it a night, the gig was rubbish", False),
        ("en", "I'm seeing Rory.", "the meeting ran long so rory ended it early", False),
    ],
)  # fmt: skip
def test_a_break_up_read_with_the_name_ends_that_relationship(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (p65-p68 once in train): a deputy head's job, ended by its last day, a
        # resignation letter or "not a deputy anymore" ...
        ("en", "I'm deputy head at Brynmawr Primary.",
         "last day at brynmawr was friday, cried in the car park", True),
        ("en", "I'm deputy head at Brynmawr Primary.",
         "gave the governors my resignation letter, handed my resignation letter in today", True),
        ("en", "I'm deputy head at Brynmawr Primary.", "officially not a deputy anymore!!", True),
        ("en", "I'm deputy head at Brynmawr Primary.",
         "the deputy head conference was dull", False),
        # ... not a partner's notice typed without its apostrophe ("gareths", "hes").
        ("en", "I'm deputy head at Brynmawr Primary.",
         "gareths handed his notice in at the depot!! hes starting at Lidl in june", False),
        # A separation typed "seperating", "its over", together again without the verb ...
        ("en", "I'm married to Huw.", "huw and i are seperating, its just not working", True),
        ("en", "Tasha is my girlfriend.", "its over. tasha told me to pack my stuff", True),
        ("en", "Tasha is my girlfriend.", "the match is over. tasha won", False),
        ("en", "Tasha and I broke up in June.",
         "me and tasha back together, one day at a time", True),
        ("en", "Huw and I separated in May.",
         "huw moves back in saturday, were giving it another go", True),
        ("en", "Huw and I separated in May.",
         "huw moves his boxes saturday, were sorting the sofa", False),
        # ... a home of two words, "College Park is home now" ...
        ("en", "I live in East Point.", "guess College Park is home now lol", True),
        ("en", "I live in East Point.", "East Point is home, always", False),
        # ... a habit named by the drink or the brand, betting as a habit ...
        ("en", "I'm not drinking any alcohol until after the marathon.",
         "had 3 proseccos at the hen do. so much for dry til april", True),
        ("en", "I quit smoking in January.", "slipped up. bummed a newport off my cousin", True),
        ("en", "I quit smoking in January.", "my cousin bummed a newport off me", False),
        ("en", "I deleted the apps and stopped betting on sports.",
         "put 50 on the hawks on fanduel last night. so disciplined", True),
        ("en", "I deleted the apps and stopped betting on sports.",
         "my brother put 50 on the hawks on fanduel last night", False),
        # ... and a plan moved in more words, or by someone for the user.
        ("en", "I'm meeting Nia for lunch on Saturday 19 September.",
         "pushed lunch with my oldest mate nia to the 26th", True),
        ("en", "I'm taking Ellie camping on September 26.",
         "moving Ellie's party to the 24th", False),
        ("en", "My court date for the ticket is February 18.",
         "my lawyer got the court date pushed!! its march 25 now", True),
        ("en", "My court date for the ticket is February 18.",
         "got the court date on paper", False),
        # Russian: a plan declined with its object first, work ended from a month on, living
        # apart and making up, a cigarette cadged.
        ("ru", "В апреле еду в санаторий в Хвалынске.",
         "от санатория в Хвалынске отказалась", True),
        ("ru", "В апреле еду в санаторий в Хвалынске.",
         "от санатория в Хвалынске в восторге", False),
        ("ru", "Я работаю бухгалтером в ТСЖ.", "с сентября не работаю, далеко ездить", True),
        ("ru", "Я работаю бухгалтером в ТСЖ.", "в сентябре не работаю по средам", False),
        ("ru", "Мы с мужем живём раздельно с октября.", "Гена вернулся вчера. помирились", True),
        ("ru", "Я не курю.", "стрельнул сигу у соседа, опять", True),
        # Doubt said after the change, of what comes next, hedges nothing; before it, it does.
        ("en", "I'm going to the staff Christmas do on 12 December.",
         "staff do is off due to the flood so might try for january instead", True),
        ("en", "I'm going to the staff Christmas do on 12 December.",
         "might cancel the staff do, the pub flooded", False),
    ],
)  # fmt: skip
def test_jobs_titles_separations_drinks_bets_and_moved_plans_in_chat_words(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (train writers' rules-only misses): a last shift said mid-message, its place
        # in lowercase, or a notice handed in in Scots ...
        ("en", "I'm the lead line cook at Southern Ember.",
         "told the boss today my last shift at southern ember is the 19th", True),
        ("en", "I'm the lead line cook at Southern Ember.",
         "told the boss today my last shift at the weekend was rough", False),
        ("en", "I'm a cashier at Asda.",
         "first day at lidl done!! last day at asda was friday", True),
        ("en", "I work for Calder as a plumber.", "handed me notice in at calder today", True),
        # ... a contractor's job after "unemployed" ...
        ("en", "I'm unemployed since the layoffs.",
         "its official, im a QA contractor at Peakline now", True),
        # ... back at a relative's ...
        ("en", "I live in a flat in Belfast.", "back living at nan's as of today", True),
        ("en", "I live in a flat in Belfast.", "dinner at nan's as of today is a tradition",
         False),
        # ... plans dropped in chat: the plug pulled, can't go; doubt
        # given as the reason ("since we'd probably argue") hedges nothing ...
        ("en", "I'm walking the Camino with Maeve from 10 August.",
         "we've pulled the plug on the Camino. next year maybe", True),
        ("en", "I'm going to visit Nana Peg in Clifden on Saturday.",
         "cant go to nanas tomorrow now, got put on a double", True),
        ("en", "We're going to Rotorua as a family on the weekend of 16 May.",
         "cancelled the Rotorua trip since we'd probably just argue in the car", True),
        ("en", "We're going to Rotorua as a family on the weekend of 16 May.",
         "probably cancelling the Rotorua trip", False),
        # ... a trial separation, a break, an item, ended it with a name ...
        ("en", "I'm married to Martin.", "we're calling it a trial seperation", True),
        ("en", "I'm married to Ngozi.", "ngozi says we are on a break, i should not call", True),
        ("en", "Ngozi and I are on a break.", "we are together again, God is faithful", True),
        ("en", "I'm single since 2019.", "me and Eddie are an item 🙈", True),
        ("en", "I'm seeing Mark.", "ended it with mark on saturday, no drama", True),
        ("en", "I'm seeing Mark.", "ended it with a joke on saturday, mark laughed", False),
        # ... a cola, the slot machines, a first drink in nearly two years (not nearly had one),
        # and a habit of another's, said with "has been".
        ("en", "I don't drink soda anymore.", "ok confession. I had a coca cola at the bbq", True),
        ("en", "I quit playing the slot machines.",
         "fell off the wagon and put 80 dollars in the slots", True),
        ("en", "I don't drink alcohol.", "had 3 cans tonight. first drink in nearly 2 years", True),
        ("en", "I don't drink alcohol.", "nearly had a drink tonight but didnt", False),
        ("en", "My dad has been sober for 16 months.",
         "first drink in nearly 2 years tonight", False),
    ],
)  # fmt: skip
def test_last_shifts_dropped_plans_breaks_colas_and_first_drinks_in_chat(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (train writers' rules-only misses), Russian: the first night anywhere but a
        # stay away is a move ...
        ("ru", "Я живу в Нижнем Новгороде.", "первая ночь в хостеле на Сабуртало, спать", True),
        ("ru", "Я живу в Нижнем Новгороде.", "первая ночь в больнице, соседи храпят", False),
        # ... a flat rented, said in the past ...
        ("ru", "Мы с Геной живём в своём доме в Рамони.",
         "сняли однушку на Кольцовской до весны", True),
        ("ru", "Мы с Геной живём в своём доме в Рамони.", "сняли видео на Кольцовской", False),
        # ... the last flight flown, the work-record book taken, "пока не работаю" ...
        ("ru", "Я работаю бортпроводницей в Южном Ветре.",
         "сегодня отлетала последний рейс, ревела", True),
        ("ru", "Работаю дальнобойщиком в ДонТрансе.", "трудовую забрал, в понедельник в Тандем",
         True),
        ("ru", "Я уволился из Пицца Бума и пока не работаю.",
         "теперь работаю в Вок Стрит на Карла Маркса", True),
        # ... dating made official ...
        ("ru", "Я в разводе и ни с кем не встречаюсь.",
         "мы с Виктором теперь официально встречаемся", True),
        # ... not going, the verb first, without the reason ("потому что мама ...") as the
        # plan; a fishing trip called off ("отбой рыбалке"), a voucher handed back ...
        ("ru", "3 октября я еду в Таганрог на юбилей к сестре Наде.",
         "не еду я к Наде на юбилей, потому что мама слегла", True),
        ("ru", "12 февраля я везу маму к кардиологу.",
         "не еду я к Наде на юбилей, потому что мама слегла", False),
        ("ru", "В субботу еду с Вадимом на подлёдную рыбалку.", "кароче отбой рыбалке, лёд поплыл",
         True),
        ("ru", "У нас с Тимуром путёвка в Анталью на август.", "сдала путёвку в Анталью, 60%",
         True),
        # ... and energy drinks by brand, vaping in slang.
        ("ru", "Я бросил пить энергетики.", "сорвался вчера, выпил два адреналина", True),
        ("ru", "Не парю с 16 февраля.", "сорвался. протянули парилку и я затянулся", True),
        ("ru", "Не парю с 16 февраля.", "не парюсь из-за работы, всё норм", False),
    ],
)  # fmt: skip
def test_russian_first_nights_last_flights_dating_and_plans_dropped_verb_first(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (p77-p80 once scored, then train): a relapse "down the pan", "smoke free and
        # i binned it", Benson ...
        ("en", "I haven't had a drink since New Year's Day.",
         "3 pints and a whisky at the do last night. 45 days down the pan", True),
        ("en", "I quit smoking on New Year's Day.",
         "bought 10 benson on the way in. 7 weeks smoke free and i binned it", True),
        # ... a habit given up in the clause after the change is said ...
        ("en", "I have a couple of pints at the shinty on a Saturday.",
         "thats me stopped altogether. no even the saturday pints", True),
        ("en", "I have a couple of pints at the shinty on a Saturday.",
         "no saturday pints this week, the shinty was off", False),
        # ... together again or done, in lowercase or caps ...
        ("en", "Moira and I are separated for now.", "me and moira are giving it another go", True),
        ("en", "Marcus and I are giving it another go.",
         "told him im done with him for good", True),
        ("en", "I'm back together with Marcus.", "me and MARCUS are done AGAIN", True),
        # ... a last shift on the boat, the first night back in one's own bed somewhere ...
        ("en", "I'm second engineer with West Highland Ferries on the Craignure boat.",
         "thats me last shift on the Craignure boat finished", True),
        ("en", "I'm living in my pal Ally's static caravan at Ganavan.",
         "first night back in my own bed in Soroba", True),
        # ... a trip off with doubt only about next year, apostrophes and all.
        ("en", "Ally and I are going sea fishing off Mull on 2 May.",
         "fishing trip's off. ally's done his back in. next year maybe", True),
        ("en", "Ally and I are going sea fishing off Mull on 2 May.",
         "fishing trip's maybe off. ally's done his back in", False),
        # Russian: work left with "с X всё" beside "не работаю", a new job said "я теперь",
        # a cigarette smoked.
        ("ru", "Я работаю в агентстве Лингвамост.",
         "с Лингвамостом всё, больше на них не работаю", True),
        ("ru", "Я работаю в агентстве Лингвамост.", "с Лингвамостом всё решили", False),
        ("ru", "Я на пенсии с июля, нигде не работаю.", "я теперь сторож на лодочной станции",
         True),
        ("ru", "Я бросила курить два года назад.", "выкурила три подряд на балконе", True),
    ],
)  # fmt: skip
def test_relapses_down_the_pan_last_shifts_on_boats_and_work_left_in_russian(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (the English train writers' misses in the shipped reader): a home in
        # lowercase counted in weeks or months "now" (not a town, a bed or a hospital) ...
        ("en", "We live in a terrace in Whitchurch.",
         "been in rhiwbina 3 months now and i still drive to the old tesco", True),
        ("en", "We live in a terrace in Whitchurch.", "been in town almost 2 months now", False),
        ("en", "We live in a terrace in Whitchurch.", "been in therapy 3 months now", False),
        # ... keys got after living in someone's basement ...
        ("en", "I'm living in my daughter Shannon's basement until I find a place.",
         "GOT THE KEYS, tyler picked his room already", True),
        # ... done with the bar in Irish English, the plant closing for good ...
        ("en", "I work Friday and Saturday nights at Flanagan's bar.",
         "thats me DONE with flanagans for good. walked out", True),
        ("en", "I'm a shift supervisor at Northgate Fabricating.",
         "letter came today, Northgate is closing the plant for good", True),
        ("en", "I'm a shift supervisor at Northgate Fabricating.",
         "Northgate is closing the canteen on fridays", False),
        # ... a trip missed without the apostrophe, the first drinks of rye.
        ("en", "I'm going to Calgary for the Stampede in July.",
         "told kevin i cant make stampede, training wont let me off", True),
        ("en", "I don't drink anymore.",
         "had 3 rye and cokes tonight. first drinks since last fall", True),
    ],
)  # fmt: skip
def test_homes_counted_in_months_plants_closing_and_first_drinks_in_chat(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (p73-p76 once in train): the first night in a home of any kind ...
        ("en", "I rent a flat in Inverness with my flatmate Eilidh.",
         "FIRST NIGHT IN THE COTTAGE!!! no curtains but its mine", True),
        ("en", "I rent a flat in Inverness with my flatmate Eilidh.",
         "first night shift in the cottage hospital was grim", False),
        ("en", "I live in an apartment in Alief with my cousin and my grandmother.",
         "first night in the mission bend house and dadi loves her room", True),
        # ... back in a home for good, as of a day ...
        ("en", "I'm staying at my aunt Shabana's place in Pasadena while our apartment is fixed.",
         "WE'RE HOME. back in the alief apartment as of last night", True),
        ("en", "I'm staying at my aunt Shabana's place in Pasadena while our apartment is fixed.",
         "went back in the alief apartment to grab my charger", False),
        # ... started at a place typed in lowercase, with when ...
        ("en", "I'm a vet nurse at Firthside Vets in Dingwall.",
         "started at black isle yesterday and im going to like it here", True),
        ("en", "I'm a vet nurse at Firthside Vets in Dingwall.",
         "started at 9 yesterday and im knackered", False),
        # ... not a break-up when denied ...
        ("en", "I'm dating Sofia.", "so we're long distance. not breaking up just more driving",
         False),
        ("en", "I'm dating Sofia.", "so we're breaking up, too much driving", True),
        # ... a Russian partner with a dash, a job word with a prefix, a plan before the
        # decision, and no subject after a preposition.
        ("ru", "Катя — моя девушка, учится в Праге.",
         "мы с катей всё. расстались вчера вечером по видео", True),
        ("ru", "Я бэкенд-разработчик в Сфералабе.",
         "последний день в Сфералабе отбыл. тортик притащил", True),
        ("ru", "12 июля еду на семинар Estel в Ростов.",
         "на семинар Estel в Ростов решила не ехать. дорого", True),
        ("ru", "12 июля еду на семинар Estel в Ростов.",
         "на дачу в субботу решила не ехать. дождь", False),
        ("ru", "Я сейчас одинок, после Кати ни с кем не встречаюсь.",
         "Лиза теперь официально моя девушка", True),
        ("ru", "Я работаю бренд-менеджером в Корзинке.",
         "Думаю про фриланс. Но если совсем без работы — сойду с ума.", False),
    ],
)  # fmt: skip
def test_first_nights_lowercase_starts_denied_break_ups_and_russian_forms(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (p77-p88's misses): a plan on a day done in the present, a holiday spent
        # somewhere, not going on it, not doing it any more ...
        ("en", "I'm going on the church retreat in Oban with Derek on 27 June.",
         "decided im not going on the church retreat to Oban, cant leave jordan", True),
        ("en", "I'm going on the church retreat in Oban with Derek on 27 June.",
         "still going on the church retreat to Oban, cant wait", False),
        ("en", "We're spending Christmas at Tasha's in London.",
         "change of plan were not doing christmas at tashas anymore", True),
        ("en", "We're spending Christmas at Tasha's in London.",
         "were doing christmas crackers at tashas tonight", False),
        # ... a job done on contract ...
        ("en", "I contract for Maplewood Payments, a Toronto fintech.",
         "handed in my notice to ben this morning, hes my manager at Maplewood", True),
        ("en", "I contract for Maplewood Payments, a Toronto fintech.",
         "ben from Maplewood sent me a meme this morning", False),
        # ... and in Russian a course signed up for, a trip that is "всё".
        ("ru", "Записалась на курс по наращиванию ресниц 12 сентября.",
         "решила не идти на ресницы двенадцатого сентября, предоплату вернут", True),
        ("ru", "Записалась на курс по наращиванию ресниц 12 сентября.",
         "решила не идти в кино в субботу", False),
        ("ru", "Летом едем с Айгуль в Турцию, уже смотрим туры.",
         "с Турцией всё, не едем никуда. денег нет", True),
        ("ru", "Летом едем с Айгуль в Турцию, уже смотрим туры.",
         "с дачей всё, не едем никуда. дождь", False),
    ],
)  # fmt: skip
def test_plans_on_a_day_holidays_contracts_and_russian_sign_ups(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (the ninth test writers' misses, once they were train): two weeks put in,
        # a volunteer's last shift, a resignation written at the workplace ...
        ("en", "I drive forklift on nights at Lakeshore Freight.",
         "put in my two weeks at lakeshore today, boss said the door's open", True),
        ("en", "I drive forklift on nights at Lakeshore Freight.",
         "put in my two cents at lakeshore today, boss laughed", False),
        ("en", "I volunteer at the Hope Street food bank every Thursday.",
         "last shift at Hope Street today, they gave me a card", True),
        ("en", "I volunteer at the Hope Street food bank every Thursday.",
         "did a shift at Hope Street today, they gave me a card", False),
        ("ru", "Я работаю бухгалтером в школе №12.",
         "написала заявление в школе, завуч уговаривала остаться", True),
        ("ru", "Я работаю бухгалтером в школе №12.",
         "подали заявление в ЗАГС на август", False),
        # ... a home named after its kind, a stay counted in months, again in the dorm ...
        ("en", "I live in a 2 bed terrace on Kirk Lane in Bramley.",
         "first night in the new flat done, so quiet", True),
        ("en", "I live in a 2 bed terrace on Kirk Lane in Bramley.",
         "first night shift in the new ward done, so quiet", False),
        ("en", "I live on Kirk Lane in Bramley.",
         "cant believe weve been in Pudsey nearly 3 months", True),
        ("en", "I live on Kirk Lane in Bramley.",
         "cant believe weve been in Pudsey 3 days, the hotel is lush", False),
        ("ru", "Я снимаю квартиру на Лесном проспекте с Петей.",
         "живу снова в общаге, окно на парковку", True),
        ("ru", "Я снимаю квартиру на Лесном проспекте с Петей.",
         "был в общаге у Пети, окно на парковку", False),
        # ... and single "after the break-up", then a partner.
        ("ru", "Я один после расставания с Олей.",
         "мы с Машей теперь встречаемся, официально", True),
        ("ru", "Я один дома на выходных.",
         "мы с Машей теперь встречаемся, официально", False),
    ],
)  # fmt: skip
def test_two_weeks_volunteers_homes_by_kind_and_single_after(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


def test_a_plan_moved_instead_or_later_than_planned_ends_the_closest_occasion() -> None:
    # Issue 34: "fighting sunday instead", "a week later than planned", "позже, чем
    # собирался" say a plan moved, in words no other rule reads; a day "instead" alone of a
    # thing ("tea instead") does not.
    assert _guessed("they switched it round so now im on sunday instead", {"rotto": 0.3}) == (
        "rotto",
    )
    assert _guessed("flying out a week later than planned", {"rotto": 0.3}) == ("rotto",)
    assert _guessed("еду на неделю позже, чем собирался", {"rotto": 0.3}, "ru") == ("rotto",)
    assert _guessed("had tea instead of coffee on sunday", {"rotto": 0.3}) == ()
    assert _guessed("еду на неделю, как и собирался", {"rotto": 0.3}, "ru") == ()


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (p93-p96's misses, scored first on the shipped build): a first day at a
        # place typed in lowercase, back from retirement, notice handed to someone ...
        ("en", "I work at Hartley Moss Architects.",
         "first day at arlo + venn done, new manager seems sharp", True),
        ("en", "I work at Hartley Moss Architects.",
         "first day at pottery done, my bowl is wonky", False),
        ("en", "I'm retired; I was a mechanic at Kessler Auto for 41 years.",
         "well i unretired. started at my buddy's shop this morning", True),
        ("en", "I'm retired; I was a mechanic at Kessler Auto for 41 years.",
         "well i retired the old truck. bought a new one this morning", False),
        ("en", "I work part-time at Pruitt Tire & Lube two mornings a week.",
         "handed dale my notice today, last day is the 11th", True),
        ("en", "I work part-time at Pruitt Tire & Lube two mornings a week.",
         "handed dale my tools today, he's borrowing them", False),
        # ... a break-up said before a doubt about something else, a partner typed in
        # lowercase, the first drink in years, a first night in a duplex ...
        ("en", "I'm in a relationship with Rohan.",
         "i ended it with rohan tonight. maybe hes right about me", True),
        ("en", "I'm in a relationship with Rohan.",
         "maybe i end it with rohan tonight", False),
        ("en", "I'm single since ending things with Rohan in August.",
         "sam's my boyfriend now. officially", True),
        ("en", "I'm single since ending things with Rohan in August.",
         "sam's my brother, he's visiting", False),
        ("en", "I don't drink anymore because of my heart meds.",
         "at the lanes with hal. first beer in over 2 years", True),
        ("en", "I don't drink anymore because of my heart meds.",
         "at the lanes with hal. first strike in over 2 years", False),
        ("en", "I live in the house on East 56th Street in Tulsa.",
         "first night in the duplex in Broken Arrow. quiet", True),
        ("en", "I live in the house on East 56th Street in Tulsa.",
         "first night at the lake in Broken Arrow. quiet", False),
        # ... and in Russian: "не курю больше", "препод в", "работаю на себя", a wife gone, a
        # partner in lowercase "всё" or "снова вместе".
        ("ru", "Я курю, примерно пачка в день.", "пачку выкинул. не курю больше, слово дал", True),
        ("ru", "Я курю, примерно пачка в день.", "пачку купил. курю больше, чем надо", False),
        ("ru", "Работаю на себя: только частные ученики онлайн.",
         "ВЗЯЛИ!!! теперь я препод в Open Minds, выхожу с понедельника", True),
        ("ru", "Работаю на себя: только частные ученики онлайн.",
         "теперь у меня ещё два ученика в Open Minds, по субботам", False),
        ("ru", "Я женат на Оксане, живём вместе с дочками.", "жена ушла. забрала девчонок", True),
        ("ru", "Я женат на Оксане, живём вместе с дочками.", "жена ушла на смену. забрала девчонок",
         False),
        ("ru", "Встречаюсь с Глебом, он тренер по кроссфиту.",
         "мы с глебом всё. может он и прав", True),
        ("ru", "Встречаюсь с Глебом, он тренер по кроссфиту.",
         "мы с глебом всё купили к ужину", False),
        ("ru", "Я рассталась с Глебом в начале июля.", "короче мы с глебом снова вместе.", True),
        ("ru", "Я рассталась с Глебом в начале июля.", "мы с глебом снова вместе работаем в зале",
         False),
    ],
)  # fmt: skip
def test_lowercase_first_days_unretiring_notice_handed_and_partners_in_lowercase(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


def test_a_plan_called_off_with_its_object_between_ends_the_closest_occasion() -> None:
    # Issue 34: "called the fishing trip off" says a plan ended, as "called off" does.
    assert _guessed("ronnie called the fishin trip off", {"rotto": 0.3}) == ("rotto",)
    assert _guessed("ronnie called the fishin shop about hooks", {"rotto": 0.3}) == ()


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (p93-p96's false contradictions): a friend dumped by her partner is not the
        # user's break-up, and a colleague or a wife who quit "три дня назад" is the subject of
        # her own change.
        ("en", "I'm in a relationship with Rohan.", "zara's boyfriend ben dumped her by text",
         False),
        ("en", "I'm in a relationship with Rohan.", "rohan dumped me by text", True),
        ("ru", "Я медсестра в поликлинике.", "Оксана три дня назад уволилась из поликлиники",
         False),
        ("ru", "Я медсестра в поликлинике.", "три дня назад уволилась из поликлиники", True),
    ],
)  # fmt: skip
def test_another_dumped_and_a_subject_before_when(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: "not working now" / "сейчас не работаю" is out of work, which a job taken
        # up ends, whatever the employer; not working on one day is no such thing.
        ("en", "I left VitaLine in June and I'm not working now.",
         "started at Tesco today, first shift done", True),
        ("en", "I left VitaLine in June.", "started at Tesco today, first shift done", False),
        ("ru", "Я ушла из ВитаЛайна и сейчас не работаю.",
         "сегодня первый день в Фармадоме отработала", True),
        ("ru", "Я ушла из ВитаЛайна.", "сегодня первый день в Фармадоме отработала", False),
        ("en", "I work at Tesco.", "I'm not working on sundays anymore lol", False),
    ],
)  # fmt: skip
def test_out_of_work_said_plainly_ends_with_a_new_job(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        # Issue 34: back together with a hedge between, or without "мы" opening the clause;
        # a break-up in the present tense ("по сути мы расходимся") ...
        ("Я ни с кем не встречаюсь.", "мы с ВИКТОРОМ теперь вроде как вместе", True),
        ("Я рассталась с Виктором и теперь одна.", "с Виктором опять вместе, сам пришёл", True),
        ("Я женат на Кате, живём вместе.", "я еду один, она остаётся. по сути мы расходимся.",
         True),
        # ... not "вместе" with anything after it, nor another's.
        ("Я рассталась с Виктором и теперь одна.", "с Виктором опять вместе гуляли в парке",
         False),
        ("Я женат на Кате, живём вместе.", "Маша с Денисом расходятся, жалко их", False),
        ("Я женат на Кате, живём вместе.", "ну всё, расходимся по домам", False),
    ],
)  # fmt: skip
def test_russian_together_again_with_a_hedge_and_breaking_up_now(
    older: str, newer: str, expected: bool
) -> None:
    assert _contradicts("ru", older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34: a clause that gives up and names no habit gives up the one habit the clause
        # before it named ...
        ("ru", "Каждый вечер бегаю в парке.",
         "раньше бегала по вечерам в парке, а после отпуска вообще забросила", True),
        ("en", "I swim every evening.", "used to swim every evening but i stopped in june", True),
        # ... not when that clause names none, or the next one only gives up worrying.
        ("ru", "Каждый вечер бегаю в парке.", "бегаю по вечерам в парке, а курить бросила", False),
        ("en", "I swim every evening.", "i swim every evening and stopped caring who looks",
         False),
        # A Russian "от-...-ся" verb of a habit says it is over for good ...
        ("ru", "Каждое утро бегаю по 5 км.", "всё, отбегалась. спина не даёт", True),
        ("ru", "Каждое утро бегаю по 5 км.", "всё, набегалась сегодня, ноги гудят", False),
        # ... and "Smoky" in a place's name is no smoking.
        ("en", "I quit smoking in March.", "drove through the Smoky Mountains today, wow", False),
        # A couple back together names the one they are back with, "me n" as "me and" ...
        ("en", "I broke up with Jonah in May.", "me n jonah are back together. slowly", True),
        ("en", "I broke up with Jonah in May.", "me n priya are back together. slowly", False),
        # ... a plan corrected to another day ("not on sunday", "saturday not sunday") ...
        ("en", "Taking the kids to the aquarium on Sunday.",
         "aquarium is saturday not sunday now, they had a booking mixup", True),
        ("en", "Taking the kids to the aquarium on Sunday.",
         "the aquarium was great, sunday was lovely", False),
        # ... and "decided we're not doing" a trip, up to what it is for.
        ("en", "We're taking the kids to Galway for Easter.",
         "decided we're not doing Galway for easter, money's too tight", True),
        ("en", "We're applying to the Harbour grant by May 2.",
         "decided we're not doing the video for the harbour grant", False),
    ],
)  # fmt: skip
def test_habits_given_up_a_clause_later_couples_back_and_plans_on_another_day(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer"),
    [
        # Issue 34 (a review of the diff): a clause that gives up only ends the habit before it
        # when it is nothing but the user's giving up; another's, a job, the rain are not.
        ("en", "I smoke.", "I still smoke. My dad quit last year"),
        ("en", "I run every morning.", "I run every morning, then I quit my job today!"),
        ("en", "I run every morning.", "Went for my morning run and the rain stopped"),
        ("ru", "Бегаю по утрам.", "Бегаю по утрам. Сестра бросила курить"),
        ("ru", "Пью кофе каждое утро.", "Пью кофе литрами, а сосед перестал здороваться"),
        ("ru", "Хожу в спортзал.", "Хожу в спортзал, больше не могу сидеть дома"),
    ],
)  # fmt: skip
def test_giving_up_another_thing_keeps_the_habit_before_it(
    language: str, older: str, newer: str
) -> None:
    assert not _contradicts(language, older, newer)


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (the twelfth test writers' misses, read once they were train): a home said
        # with who and what kind before where, in either language, is where the user lives ...
        ("en", "I live with my fiancé Marcus in a one-bedroom apartment in Midtown.",
         "living at my mom's in College Park for now", True),
        ("en", "I live with my fiancé Marcus in a one-bedroom apartment in Midtown.",
         "we love Midtown, best brunch in town", False),
        ("ru", "Мы с мужем живём в двухкомнатной квартире в центре Верхнеозёрска.",
         "уже больше месяца живём в Горелове", True),
        ("ru", "Мы с мужем живём в двухкомнатной квартире в центре Верхнеозёрска.",
         "в центре Верхнеозёрска открыли каток", False),
        # ... a home that is "his own" is another's, wherever his name stood ...
        ("en", "I live in Dennistoun with my wife Kirsty.",
         "picked craig up, 4 months sober and moving into his own flat in Govan next week", False),
        ("en", "I live in Dennistoun with my wife Kirsty.",
         "4 months of saving and moving into our own flat in Govan next week", True),
        # ... and a lowercase name, a friend's possessive or a relation word with "my" after it
        # is another subject in Russian chat.
        ("ru", "Я снова не курю после срыва в марте.",
         "катин денис бросил курить в прошлую среду", False),
        ("ru", "Я курю.", "бросил курить в прошлую среду", True),
        ("ru", "Я замужем за Рустамом, мы вместе 12 лет.",
         "так жалко катю. подруга моя развелась со своим денисом", False),
        ("ru", "Я живу в квартире отца на Северном.",
         "Ира бывшая моя переехала в Липецк к своему новому", False),
        ("ru", "Я живу в Москве.", "наконец переехали в Липецк", True),
        ("ru", "Я встречаюсь с Пашей.", "роман закончился, мы расстались", True),
    ],
)  # fmt: skip
def test_homes_said_at_length_and_others_subjects_in_chat(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (the twelfth test writers' misses, read once they were train): teaching
        # somewhere is a job, and a last day there "done" ends it ...
        ("en", "I teach PE at Eastfield Academy.", "last day at Eastfield done today. 6 yrs",
         True),
        ("en", "I teach PE at Eastfield Academy.", "i teach at Hillside now, started monday", True),
        ("en", "I teach PE at Eastfield Academy.", "sports day at Eastfield done today", False),
        # ... a couple "properly" back together, or courting, is one again ...
        ("en", "Kirsty and I are on a break.", "me and kirsty are properly back together", True),
        ("en", "Kirsty and I are on a break.", "me and kirsty properly need a break", False),
        ("en", "I'm a widow and I'm not seeing anyone.",
         "Bernard and I are officially courting, his word not mine", True),
        ("en", "I'm single.", "we were dating for 5 years before the wedding", False),
        # ... and living apart in Russian ("живём отдельно") ends when they make up, unless it
        # is apart from someone else.
        ("ru", "Муж ушёл жить к своей матери, мы живём отдельно.", "Коля вернулся. помирились",
         True),
        ("ru", "Мы с мужем живём отдельно от свекрови.", "помирились со свекровью", False),
    ],
)  # fmt: skip
def test_teaching_jobs_couples_back_properly_and_living_apart(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (the twelfth test writers' misses, read once they were train): a plan
        # cancelled after "and", said with the Scots "no", or deferred, is off ...
        ("en", "I'm going to Miami for my bachelorette the weekend of June 19.",
         "had to call Jordan and cancel miami. she already paid for the airbnb", True),
        ("en", "I'm going to Gaz's stag do in Benidorm in May.",
         "told my pal gaz im no going to Benidorm for his stag", True),
        ("en", "I'm running the Edinburgh Marathon on 31 May.",
         "deferred my Edinburgh place to next year and entered Loch Ness instead", True),
        # ... but not a "no" that is no "not", nor a plan kept.
        ("en", "I'm going to Gaz's stag do in Benidorm in May.",
         "there is no going to Benidorm without sunscreen", False),
        ("en", "I'm going to Miami for my bachelorette the weekend of June 19.",
         "had to call Jordan and book miami flights", False),
    ],
)  # fmt: skip
def test_plans_cancelled_after_and_in_scots_or_deferred(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (the twelfth test writers' misses, read once they were train): a "non
        # smoker" spelt with a space, "курево", and the second week without a habit.
        ("en", "I started smoking again.", "non smoker again since this morning", True),
        ("en", "I started smoking again.", "non stop smoking since this morning", False),
        ("ru", "Я снова начал курить.", "вторая неделя без курева, жвачку жую пачками", True),
        ("ru", "Я снова начал курить.", "вторая неделя без отпуска, курю как паровоз", False),
        ("ru", "Я не курю.", "опять на куреве, третий день", True),
    ],
)  # fmt: skip
def test_habits_given_up_in_everyday_words(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34 (a review of the diff): a move stays the user's after "his new job"; a
        # lowercase word before a claim is someone else only as a name in the nominative, and
        # that person's break-up is theirs; living apart from parents is no separation.
        ("en", "I live in Austin.", "because of his new job we moved to Denver", True),
        ("en", "I live in Austin.", "after their new baby arrived we moved to Denver", True),
        ("ru", "Живу в Москве.", "5 марта переехали в Казань", True),
        ("ru", "Я работаю в Сбере.", "в начале августа устроился в Озон", True),
        ("ru", "Я веду магазин Светы.", "сказала свете что больше не веду её магазин", True),
        ("ru", "Я снова встречаюсь с Кириллом.", "маша рассталась с Денисом", False),
        ("ru", "Я замужем за Олегом.", "мы с мужем наконец живём отдельно, своя квартира!", False),
        ("ru", "Я замужем за Олегом.", "живём отдельно, от родителей съехали", False),
    ],
)  # fmt: skip
def test_review_guards_for_changes_read_from_the_twelfth_writers(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("language", "older", "newer", "expected"),
    [
        # Issue 34, the fifteenth test writers' misses: an aside to the listener ("dont judge
        # me") or a promise recalled ("i said no more bettin") negates no habit; cigars are
        # smoking; money lost on a game is a bet.
        ("en", "I quit smoking in January.",
         "bought a pack at the garage last night and smoked 4 😶 dont judge me", True),
        ("en", "I quit smoking in January.", "i dont smoke, dont judge me", False),
        ("en", "I quit drinking in January.", "dont hate me i had wine again", True),
        ("en", "I quit cigars in January.",
         "smoked a cigar with Sean on the boat yesterday. just the one. dont tell Okafor", True),
        ("en", "I quit sports betting last year.",
         "put 50 on a parlay for the finals i know i said no more bettin", True),
        ("en", "I quit sports betting last year.", "no more bettin for me, i said it", False),
        ("en", "I quit sports betting last year.", "dropped 80 on the match tickets", False),
        ("en", "I stopped sports betting again in June.",
         "lost 200 on the bears game 2 weeks ago n didnt tell jas", True),
        # A job held "remotely as a QA tester at" an employer; a relationship "long-distance".
        ("en", "I work remotely as a QA tester at Halden Pay.",
         "i work for Kestrel Labs now, remote QA again", True),
        ("en", "I work remotely as a QA tester at Halden Pay.",
         "i work for Halden Pay still, remote QA", False),
        ("en", "I work at Tesco.", "started my first day of uni at Leeds", False),
        ("en", "I'm in a long-distance relationship with Callum.",
         "callum and i broke up on saturday", True),
        # An ex named is that one's ending, not the partner's now.
        ("en", "I'm in a long-distance relationship with Callum.",
         "my ex Sizwe texted me out of nowhere", False),
        ("en", "I'm in a long-distance relationship with Callum.",
         "bumped into my ex today, awkward", True),
        ("en", "I'm in a relationship with Callum.", "finally got together with Priya for coffee",
         False),
        # A lowercase name with its "'s" is the subject of the move; "that's" is no one.
        ("en", "I live in Heaton, Bradford.", "sadia's moving to Manchester in september", False),
        ("en", "I live in Heaton, Bradford.", "that's me moving to Leeds then", True),
        ("en", "I work at Tesco.", "today's my last day at Tesco", True),
        ("en", "I live in Heaton, Bradford.", "hubby's moving to Manchester with me", True),
        # The first night in a "spot" is a home; a parking spot is none.
        ("en", "I live with Jas in her apartment in Pilsen.",
         "first night in the Bridgeport spot 🔑 zion got his own room", True),
        ("en", "I live with Jas in her apartment in Pilsen.",
         "found a great parking spot in Bridgeport", False),
        ("en", "I live in Leeds.", "first night in the camping spot, freezing", False),
        # Russian: a trial separation ends living together; the place before "живём" is home.
        ("ru", "Я живу с женой Алсу и дочкой в нашей квартире.",
         "алсу забрала дочку и уехала к матери сказала поживём отдельно", True),
        ("ru", "Я живу с женой Алсу и дочкой в нашей квартире.",
         "алсу с дочкой поехала к матери на выходные", False),
        ("ru", "Я живу с женой Алсу и дочкой в нашей квартире.",
         "съедем от свекрови, поживем отдельно наконец", False),
        ("ru", "Я живу на Уралмаше, на пятом этаже без лифта.",
         "уже три месяца на Ботанике живём, а я всё в 116 автобус сажусь", True),
        ("ru", "Я живу на Уралмаше, на пятом этаже без лифта.", "на Уралмаше живём уже 30 лет",
         False),
    ],
)  # fmt: skip
def test_asides_promises_cigars_long_distance_and_exes_named(
    language: str, older: str, newer: str, expected: bool
) -> None:
    assert _contradicts(language, older, newer) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 34, the fifteenth test writers' misses: a plan done a day early, a partner told
        # to cancel, no plane got on, end the closest occasion; early "for once", a booking or
        # a late night end none.
        ("had the dentist this morning, a day early because they had a cancellation", True),
        ("told ellie to cancel her flights, theres no point now", True),
        ("told him to cancel netflix", False),
        ("got paid a day early", False),
        ("so yeah im not gettin on no plane that week", True),
        ("got home a day early for once", False),
        ("ellie's thrilled, the ferry is booked", False),
        ("we stayed up late, ellie's thrilled", False),
    ],
)  # fmt: skip
def test_plans_done_early_cancelled_by_another_or_a_plane_not_taken(
    text: str, expected: bool
) -> None:
    assert (_guessed(text, {"rotto": 0.9}) == ("rotto",)) is expected
