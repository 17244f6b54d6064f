"""Reasoning puzzles with randomised people, objects and numbers, for make_prompts.py.

Every generator takes a random.Random and returns one complete puzzle. Puzzles whose
clues are derived from a hidden true state (rankings, schedules, knights and knaves,
seating) are therefore always consistent; where the clues might not pin down a unique
answer, the question asks the solver to say so.
"""

import math

FEMALE_NAMES = [
    "Amara", "Beatriz", "Chloe", "Dalia", "Elena", "Fatima", "Grace", "Hana", "Ingrid", "Jasmine", "Keiko",
    "Leila", "Maya", "Nadia", "Olga", "Priya", "Rosa", "Sofia", "Tamsin", "Uma", "Vera", "Wen", "Yasmin", "Zoe",
]
MALE_NAMES = [
    "Aarav", "Bruno", "Carlos", "Dmitri", "Emeka", "Felix", "Gabriel", "Hugo", "Ivan", "Jonas", "Kenji", "Luca",
    "Mateo", "Nikhil", "Omar", "Pedro", "Rafael", "Samir", "Tomas", "Viktor", "Wei", "Yusuf", "Zane", "Arjun",
]
NAMES = FEMALE_NAMES + MALE_NAMES
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

# (setting sentence, "more" comparative, "less" comparative, top superlative, bottom superlative)
RANKING_ATTRIBUTES = [
    ("{n} friends compare their heights.", "taller than", "shorter than", "tallest", "shortest"),
    ("{n} cousins are talking about their ages.", "older than", "younger than", "oldest", "youngest"),
    ("{n} runners finish a race, with no ties.", "faster than", "slower than", "fastest", "slowest"),
    ("{n} students get their maths test results back, with no two scores equal.", "scored higher than",
     "scored lower than", "highest scorer", "lowest scorer"),
    ("{n} colleagues arrive at the office one morning, one at a time.", "arrived earlier than",
     "arrived later than", "first to arrive", "last to arrive"),
    ("{n} suitcases belong to {n} travellers, and no two weigh the same.", "has a heavier suitcase than",
     "has a lighter suitcase than", "owner of the heaviest suitcase", "owner of the lightest suitcase"),
]


def _ranking(rng):
    setting, more, less, top, bottom = rng.choice(RANKING_ATTRIBUTES)
    count = rng.randint(4, 6)
    people = rng.sample(NAMES, count)  # hidden truth: from most to least
    facts = []
    for upper, lower in zip(people, people[1:]):
        facts.append(f"{upper} {more} {lower}." if rng.random() < 0.5 else f"{lower} {less} {upper}.")
    rng.shuffle(facts)
    question = rng.choice([
        f"Who is the {top}?", f"Who is the {bottom}?", f"Put them in order from the {top} to the {bottom}.",
        f"Is {people[1]} {more} {people[-2]}? How do you know?",
    ])
    setting = setting.format(n=NUMBER_WORDS[count])
    return f"{setting[0].upper()}{setting[1:]} {' '.join(facts)} {question}"


FAMILY_PUZZLES = [
    "{f1} is the mother of {m1}. {m1} has a daughter called {f2}, and {f2} has a son called {m2}. How is {f1} related to {m2}?",
    "{m1}'s father is {m2}. {m2}'s sister is {f1}, and {f1} has a daughter named {f2}. What is the relationship between {m1} and {f2}?",
    "{f1} and {f2} are sisters. {f1}'s son is {m1}, and {f2} is married to {m2}. What is {m2} to {m1}?",
    "{m1} is the only son of {f1}. {f1}'s brother {m2} is married to {f2}. How is {f2} related to {m1}?",
    "{f1} is {m1}'s niece. {m1} has only one sibling, his sister {f2}, and {f1} has no other aunts or uncles on that side. Who is {f1}'s mother?",
    "{m1} looks at a photograph and says: \"The woman in this picture is the only daughter of my mother's only child.\" {m1} has no sisters. Who could the woman be?",
    "{f1}'s grandfather {m1} has exactly two children, {f2} and {m2}. {f2} has no children. Who is {f1}'s parent in that family line, and how is {f2} related to {f1}?",
    "{m1} is {m2}'s brother. {m2} is {f1}'s father. {f2} is {m1}'s mother. How is {f2} related to {f1}?",
]


def _family(rng):
    females, males = rng.sample(FEMALE_NAMES, 2), rng.sample(MALE_NAMES, 2)
    puzzle = rng.choice(FAMILY_PUZZLES).format(f1=females[0], f2=females[1], m1=males[0], m2=males[1])
    return puzzle + rng.choice(["", " Explain your reasoning.", " Draw the family tree in words to justify your answer."])


def _ages(rng):
    a, b, c = rng.sample(NAMES, 3)
    form = rng.randrange(3)
    if form == 0:
        c_age, factor, gap, later = rng.randint(4, 12), rng.choice([2, 3]), rng.randint(2, 9), rng.randint(2, 15)
        word = {2: "twice", 3: "three times"}[factor]
        return (f"{a} is {gap} years older than {b}. {b} is {word} as old as {c}, who is {c_age}. "
                f"How old will {a} be in {later} years?")
    if form == 1:
        younger, gap = rng.randint(8, 40), rng.randint(2, 12)
        return (f"The ages of {a} and {b} add up to {2 * younger + gap}, and {a} is {gap} years older than {b}. "
                f"How old is each of them?")
    ago, factor = rng.randint(2, 8), rng.choice([2, 3, 4])
    b_now = ago + rng.randint(2, 10)
    times = {2: "twice", 3: "three times", 4: "four times"}[factor]
    return (f"{NUMBER_WORDS[ago].capitalize()} years ago, {a} was {times} as old as {b}. Today {b} is {b_now}. How old is {a} now, "
            f"and in how many years will {a} be exactly twice {b}'s age, if ever?")


SYLLOGISM_GROUPS = [
    "musicians", "early risers", "coffee drinkers", "cyclists", "gardeners", "painters", "engineers", "chess players",
    "teachers", "runners", "vegetarians", "night owls", "poets", "swimmers", "bakers", "stamp collectors", "hikers",
]
SYLLOGISM_FORMS = [
    "All {a} are {b}. All {b} are {c}. Does it follow that all {a} are {c}?",
    "All {a} are {b}. Some {b} are {c}. Does it follow that some {a} are {c}?",
    "No {a} are {b}. Some {c} are {b}. Can we conclude that some {c} are not {a}?",
    "Some {a} are {b}. No {b} are {c}. What, if anything, can we conclude about {a} and {c}?",
    "All {a} are {b}. {name} is not one of the {b}. What can we say about whether {name} is one of the {a}?",
    "Some {a} are {b}, and some {b} are {c}. Must some {a} be {c}?",
    "No {a} are {b}. All {c} are {a}. Can any {c} be {b}?",
]


def _syllogism(rng):
    a, b, c = rng.sample(SYLLOGISM_GROUPS, 3)
    town = rng.choice(["In a certain town", "In one village", "At a particular university", "In a small club"])
    body = rng.choice(SYLLOGISM_FORMS).format(a=a, b=b, c=c, name=rng.choice(NAMES))
    return f"{town}, assume the following is true. {body} Explain whether the conclusion is valid."


def _knights(rng):
    count = rng.choice([2, 3])
    people = rng.sample(NAMES, count)
    roles = {p: rng.random() < 0.5 for p in people}  # True = always tells the truth
    truth_word, liar_word = rng.choice([("knight", "knave"), ("truth-teller", "liar")])
    statements = []
    for speaker in people:
        others = [p for p in people if p != speaker]
        candidates = []
        for other in others:
            candidates.append((f"{other} is a {truth_word}.", roles[other]))
            candidates.append((f"{other} is a {liar_word}.", not roles[other]))
            candidates.append((f"{other} and I are the same type.", roles[other] == roles[speaker]))
        candidates.append((f"At least one of us is a {liar_word}.", not all(roles.values())))
        candidates.append((f"Exactly one of us is a {truth_word}.", sum(roles.values()) == 1))
        candidates.append((f"All of us are {truth_word}s.", all(roles.values())))
        wanted = [text for text, truth in candidates if truth == roles[speaker]]
        statements.append(f"{speaker} says: \"{rng.choice(wanted)}\"")
    setting = rng.choice(["On an island", "In a remote village", "In a strange kingdom"])
    return (f"{setting}, everyone is either a {truth_word}, who always tells the truth, or a {liar_word}, who always "
            f"lies. You meet {', '.join(people[:-1])} and {people[-1]}. {' '.join(statements)} "
            f"What can you determine about each of them?")


def _weekday(rng):
    form = rng.randrange(3)
    if form == 0:
        return (f"If today is {rng.choice(WEEKDAYS)}, what day of the week will it be {rng.randint(10, 400)} days "
                f"from now? Explain how you worked it out.")
    if form == 1:
        event = rng.choice(["My last dentist appointment", "The school concert", "My sister's wedding", "The office move"])
        return (f"{event} was {rng.randint(10, 200)} days ago, and it fell on a {rng.choice(WEEKDAYS)}. What day of "
                f"the week is it today?")
    first, second = sorted(rng.sample(range(12), 2))
    return (f"In a non-leap year, {MONTHS[first]} 1st falls on a {rng.choice(WEEKDAYS)}. On what day of the week "
            f"does {MONTHS[second]} 1st fall? Show your reasoning.")


def _directions(rng):
    heading = rng.choice(["north", "east", "south", "west"])
    unit = rng.choice(["metres", "blocks", "kilometres", "steps"])
    moves = [f"walk {rng.randint(2, 12)} {unit}"]
    for _ in range(rng.randint(2, 4)):
        turn = rng.choice(["turn left", "turn right", "turn right", "turn left", "turn around"])
        moves.append(f"{turn} and walk {rng.randint(2, 12)} {unit}")
    route = ", then ".join(moves)
    return (f"You start facing {heading}. You {route}. Which direction are you facing now, and how far are you "
            f"from your starting point in a straight line?")


def _counting_pairs(rng):
    n = rng.randint(6, 30)
    return rng.choice([
        f"At a party with {n} guests, everyone shakes hands with everyone else exactly once. How many handshakes take place?",
        f"In a league of {n} teams, every team plays every other team twice, once at home and once away. How many matches are played in total?",
        f"In a chess club of {n} members, each member plays one game against every other member. How many games are played, and how many does each member play?",
        f"If {n} points are placed on a circle and every pair of points is joined by a straight line, how many lines are drawn?",
    ])


def _sequence(rng):
    start, step = rng.randint(1, 15), rng.randint(2, 9)
    rule = rng.randrange(7)
    if rule == 0:
        terms = [start + step * i for i in range(6)]
    elif rule == 1:
        ratio = rng.choice([2, 3])
        terms = [start * ratio ** i for i in range(6)]
    elif rule == 2:
        terms = [i * i + start for i in range(1, 7)]
    elif rule == 3:
        terms = [start]
        for i in range(1, 6):
            terms.append(terms[-1] + step + i)
    elif rule == 4:
        terms = [start, start + step]
        while len(terms) < 7:
            terms.append(terms[-1] + terms[-2])
    elif rule == 5:
        terms = [i ** 3 + (start % 5) for i in range(1, 6)]
    else:
        terms = []
        for i in range(7):
            terms.append(start + (i // 2) * step if i % 2 == 0 else 100 - (i // 2) * step)
    shown = ", ".join(str(t) for t in terms)
    return rng.choice([
        f"What number comes next in the sequence {shown}, ...? Explain the rule you found.",
        f"Find the next two terms of this sequence and describe the pattern: {shown}, ...",
    ])


RATE_TASKS = [
    ("painters", "paint a fence"), ("printers", "print a batch of leaflets"), ("bakers", "bake an order of bread rolls"),
    ("pumps", "drain a flooded basement"), ("volunteers", "clear litter from a beach"),
    ("machines", "pack a container of parcels"), ("harvesters", "harvest a wheat field"),
]


def _rates(rng):
    workers, task = rng.choice(RATE_TASKS)
    first, hours = rng.randint(2, 8), rng.randint(2, 12)
    second = rng.choice([n for n in range(2, 13) if n != first])
    return (f"If {first} {workers} can {task} in {hours} hours, how long would it take {second} {workers} working at "
            f"the same rate? State any assumptions you make.")


def _clock(rng):
    if rng.random() < 0.7:
        return (f"What is the smaller angle between the hour hand and the minute hand of an analogue clock at "
                f"{rng.randint(1, 12)}:{rng.choice(range(5, 60, 5)):02d}? Explain your calculation.")
    start = rng.randint(1, 9)
    return (f"How many times do the hour and minute hands of a clock point in exactly the same direction between "
            f"{start} o'clock and {start + rng.randint(2, 3)} o'clock? Explain.")


CAUSAL_CLAIMS = [
    ("people who drink coffee every day live longer on average", "coffee makes people live longer"),
    ("students who eat breakfast get better grades", "eating breakfast improves grades"),
    ("towns with more libraries have lower crime rates", "building libraries reduces crime"),
    ("children who play a musical instrument score higher in maths", "music lessons improve maths ability"),
    ("ice-cream sales and drowning incidents rise together", "eating ice cream makes swimming dangerous"),
    ("companies with a casual dress code are more profitable", "relaxing the dress code boosts profits"),
    ("people who own dogs report being happier", "getting a dog will make you happier"),
    ("hospitals with more doctors have more deaths", "doctors are making patients worse"),
    ("countries that eat more chocolate win more Nobel prizes", "chocolate makes people smarter"),
    ("runners who wear expensive shoes finish marathons faster", "expensive shoes make you faster"),
    ("neighbourhoods with more trees have healthier residents", "planting trees improves health"),
    ("employees who work longer hours get promoted more often", "working longer hours causes promotions"),
]


def _causal(rng):
    finding, conclusion = rng.choice(CAUSAL_CLAIMS)
    source = rng.choice(["A survey found that", "A newspaper reports that", "A study of 2,000 people found that",
                         "Data from several cities show that"])
    return (f"{source} {finding}. Someone concludes that {conclusion}. Is that conclusion justified? What other "
            f"explanations could account for the finding, and how could you test them?")


SCHEDULE_ITEMS = [
    ("meetings", ["budget", "design", "hiring", "marketing", "training"]),
    ("guest talks", ["astronomy", "poetry", "robotics", "history", "cooking"]),
    ("chores", ["laundry", "shopping", "vacuuming", "gardening", "window cleaning"]),
    ("exams", ["biology", "French", "chemistry", "geography", "music"]),
]


def _schedule(rng):
    kind, items = rng.choice(SCHEDULE_ITEMS)
    days = WEEKDAYS[:5]
    order = rng.sample(items, 5)  # hidden truth: order[i] happens on days[i]
    day_of = {item: i for i, item in enumerate(order)}
    clues = []
    fixed = rng.choice(order)
    clues.append(f"The {fixed} one is on {days[day_of[fixed]]}.")
    for _ in range(rng.randint(3, 4)):
        x, y = rng.sample(order, 2)
        if day_of[x] > day_of[y]:
            x, y = y, x
        kind_of_clue = rng.randrange(3)
        if kind_of_clue == 0:
            clues.append(f"The {x} one is earlier in the week than the {y} one.")
        elif kind_of_clue == 1 and day_of[y] - day_of[x] == 1:
            clues.append(f"The {y} one is the day immediately after the {x} one.")
        else:
            wrong_day = rng.choice([d for i, d in enumerate(days) if i != day_of[x]])
            clues.append(f"The {x} one is not on {wrong_day}.")
    clues = list(dict.fromkeys(clues))
    rng.shuffle(clues)
    return (f"Five {kind} ({', '.join(sorted(items))}) must be scheduled from Monday to Friday, one per day. "
            f"{' '.join(clues)} Find a schedule that satisfies every condition and say whether it is the only one.")


def _weighing(rng):
    count = rng.choice([6, 8, 9, 12, 20, 27, 30, 81])
    thing = rng.choice(["coins", "marbles", "ball bearings", "gold bars", "identical-looking pills"])
    odd = rng.choice(["slightly heavier", "slightly lighter"])
    return (f"You have {count} {thing}, and one of them is {odd} than the others. Using only a balance scale, what "
            f"is the smallest number of weighings that guarantees you find it? Describe your strategy.")


def _labels(rng):
    a, b = rng.choice([("apples", "oranges"), ("red socks", "blue socks"), ("pens", "pencils"), ("marbles", "buttons"),
                       ("tea bags", "coffee pods"), ("bolts", "screws")])
    return (f"Three boxes are labelled \"{a}\", \"{b}\" and \"{a} and {b}\", and every label is wrong. You may take "
            f"one item from one box without looking inside. Which box should you choose, and how can you then "
            f"relabel all three correctly?")


FLAWED_ARGUMENTS = [
    "Every time I wash my car it rains, so washing my car causes rain.",
    "My grandfather smoked all his life and lived to 95, so smoking cannot be that harmful.",
    "If we allow students to redo one test, soon they will want to redo every test and grades will mean nothing.",
    "This diet must work, because thousands of people are following it.",
    "You can't trust her opinion on climate policy; she drives a big car.",
    "Either we ban all phones in school or students will never learn anything.",
    "The new manager started in March and sales fell in April, so the new manager is bad for business.",
    "Nobody has proved that the old bridge is unsafe, so it must be safe.",
    "We've spent so much on this project already that we have to finish it, whatever it costs.",
    "Most successful entrepreneurs dropped out of university, so dropping out will help you succeed.",
    "The restaurant is always full, so the food must be excellent.",
    "A famous actor recommends this vitamin, so it must be effective.",
    "All the people I know voted for the same candidate, so that candidate will surely win the election.",
    "The last three coin tosses were heads, so the next one is very likely to be tails.",
]


def _flaw(rng):
    argument = rng.choice(FLAWED_ARGUMENTS)
    return rng.choice([
        f"Identify the flaw in this reasoning: \"{argument}\"",
        f"What is wrong with the following argument, and what would a better argument look like? \"{argument}\"",
        f"Name the logical fallacy in this statement and explain it: \"{argument}\"",
    ])


def _seating(rng):
    count = rng.choice([5, 6])
    people = rng.sample(NAMES, count)  # hidden truth: clockwise order around the table
    seat = {p: i for i, p in enumerate(people)}
    clues = []
    while len(clues) < count - 1:
        x, y = rng.sample(people, 2)
        gap = (seat[y] - seat[x]) % count
        if gap == 1:
            clue = f"{y} sits immediately clockwise from {x}."
        elif count == 6 and gap == 3:
            clue = f"{x} sits directly opposite {y}."
        elif gap not in (1, count - 1):
            clue = f"{x} does not sit next to {y}."
        else:
            continue
        if clue not in clues:
            clues.append(clue)
    target = rng.choice(people)
    question = (f"Who sits directly opposite {target}?" if count == 6 else f"Who are {target}'s two neighbours?")
    return (f"{NUMBER_WORDS[count].capitalize()} friends sit around a round table: {', '.join(sorted(people))}. {' '.join(clues)} "
            f"{question} If the clues allow more than one arrangement, explain which answers are still certain.")


def _river(rng):
    carrier = rng.choice(["farmer", "shepherd", "traveller", "trader"])
    hunter, prey, food = rng.choice([("fox", "chicken", "sack of grain"), ("dog", "cat", "fish"),
                                     ("wolf", "goat", "basket of cabbages"), ("cat", "mouse", "wheel of cheese")])
    return (f"A {carrier} must cross a river with a {hunter}, a {prey} and a {food}. The boat can carry the "
            f"{carrier} and only one other item. Left alone, the {hunter} would eat the {prey}, and the "
            f"{prey} would eat the {food}. How can everything get across safely?")


def _jugs(rng):
    while True:
        small, large = sorted(rng.sample(range(3, 14), 2))
        target = rng.randint(1, large - 1)
        if math.gcd(small, large) == 1 and target != small:
            break
    return (f"You have a {small}-litre jug, a {large}-litre jug and an unlimited supply of water, but no markings on "
            f"either jug. How can you measure exactly {target} litres? Give the steps.")


REASONING_PUZZLES = [
    _ranking, _family, _ages, _syllogism, _knights, _weekday, _directions, _counting_pairs, _sequence, _rates,
    _clock, _causal, _schedule, _weighing, _labels, _flaw, _seating, _river, _jugs,
]

REASONING = {
    "templates": [("{puzzle}", "show")],
    "constraints": {
        "show": [
            "Think it through step by step.", "Show your reasoning before giving the final answer.",
            "State your final answer clearly on the last line.", "Keep the explanation short.",
        ],
    },
    "slots": {"puzzle": REASONING_PUZZLES},
}
