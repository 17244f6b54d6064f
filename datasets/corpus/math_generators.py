"""Maths problems with randomised numbers, for make_prompts.py.

Numbers are drawn so that problems are well posed (integer roots, non-zero determinants,
feasible mixtures); each generator returns one complete problem statement.
"""

import math

from reasoning_generators import NAMES

CURRENCIES = ["$", "€", "£"]


def _signed(value, first=False):
    """Render a coefficient's sign for the middle of an expression: ' + 3' / ' - 3'."""
    if value == 0 and not first:
        return ""
    if first:
        return f"-{abs(value)}" if value < 0 else f"{value}"
    return f" - {abs(value)}" if value < 0 else f" + {value}"


def _polynomial(terms):
    """terms: [(coefficient, power)] from highest power down; zero coefficients are skipped."""
    parts = []
    for coefficient, power in terms:
        if coefficient == 0:
            continue
        magnitude = abs(coefficient)
        body = "" if magnitude == 1 and power > 0 else str(magnitude)
        body += "" if power == 0 else ("x" if power == 1 else f"x^{power}")
        if not parts:
            parts.append(("-" if coefficient < 0 else "") + body)
        else:
            parts.append((" - " if coefficient < 0 else " + ") + body)
    return "".join(parts) or "0"


def _linear_equation(rng):
    x = rng.randint(-12, 12)
    a, c = rng.sample(range(2, 10), 2)
    b = rng.randint(-20, 20)
    d = a * x + b - c * x
    return rng.choice([
        f"Solve for x: {a}x{_signed(b)} = {c}x{_signed(d)}.",
        f"Find the value of x that satisfies {a}x{_signed(b)} = {c}x{_signed(d)}, and check your answer.",
    ])


def _linear_system(rng):
    while True:
        x, y = rng.randint(-9, 9), rng.randint(-9, 9)
        a1, b1, a2, b2 = (rng.choice([-1, 1]) * rng.randint(1, 7) for _ in range(4))
        if a1 * b2 - a2 * b1 != 0:
            break
    first = f"{_polynomial([(a1, 1)])}{_signed(b1)}y = {a1 * x + b1 * y}".replace(" 1y", " y")
    second = f"{_polynomial([(a2, 1)])}{_signed(b2)}y = {a2 * x + b2 * y}".replace(" 1y", " y")
    return rng.choice([
        f"Solve the simultaneous equations {first} and {second}.",
        f"Find x and y if {first} and {second}. Use elimination or substitution and explain your choice.",
    ])


def _quadratic(rng):
    r1, r2 = rng.randint(-9, 9), rng.randint(-9, 9)
    lead = rng.choice([1, 1, 1, 2, 3])
    poly = _polynomial([(lead, 2), (-lead * (r1 + r2), 1), (lead * r1 * r2, 0)])
    return rng.choice([
        f"Solve the quadratic equation {poly} = 0.",
        f"Factorise {poly} completely.",
        f"Find the vertex and the x-intercepts of the parabola y = {poly}.",
        f"Use the quadratic formula to solve {poly} = 0, and then check the result by factorising.",
    ])


def _percentages(rng):
    cur = rng.choice(CURRENCIES)
    form = rng.randrange(3)
    if form == 0:
        price, discount, tax = rng.randint(20, 400), rng.choice([10, 15, 20, 25, 30, 40]), rng.choice([5, 8, 10, 20])
        item = rng.choice(["jacket", "bicycle helmet", "pair of boots", "desk lamp", "backpack"])
        return (f"A {item} costs {cur}{price}. It is discounted by {discount}%, and then sales tax of {tax}% is "
                f"added to the discounted price. What is the final price?")
    if form == 1:
        before = rng.randint(2000, 90000)
        after = before + rng.randint(-before // 5, before // 3)
        place = rng.choice(["A town's population", "A website's monthly visitors", "A farm's annual harvest in kg"])
        return f"{place} went from {before:,} to {after:,}. What is the percentage change?"
    old = rng.randrange(1500, 5000, 100)
    rise = rng.choice([2, 3, 4, 5, 6, 8, 10])
    return (f"After a {rise}% pay rise, {rng.choice(NAMES)} earns {cur}{old * (100 + rise) / 100:,.2f} a month. "
            f"What was the monthly salary before the rise?")


def _interest(rng):
    cur = rng.choice(CURRENCIES)
    principal, rate, years = rng.randrange(500, 20001, 500), rng.choice([1.5, 2, 3, 4, 5, 6, 7.5]), rng.randint(2, 20)
    freq = rng.choice(["annually", "monthly", "quarterly"])
    return rng.choice([
        f"If you invest {cur}{principal:,} at {rate}% interest compounded {freq}, how much will you have after {years} years?",
        f"Compare simple and compound interest on {cur}{principal:,} at {rate}% a year over {years} years. How big is the difference?",
        f"At {rate}% interest compounded annually, roughly how many years does it take for an investment to double?",
    ])


def _areas(rng):
    form = rng.randrange(5)
    if form == 0:
        length, width, path = rng.randint(6, 30), rng.randint(4, 20), rng.choice([0.5, 1, 1.5, 2])
        return (f"A rectangular garden measures {length} m by {width} m and is surrounded by a path {path} m wide. "
                f"What is the area of the path?")
    if form == 1:
        radius = rng.randint(2, 40)
        return f"A circular pond has a radius of {radius} m. What are its circumference and its area?"
    if form == 2:
        a, b, h = rng.randint(4, 20), rng.randint(4, 20), rng.randint(3, 15)
        return f"A trapezium has parallel sides of {a} cm and {b} cm, and a height of {h} cm. What is its area?"
    if form == 3:
        r, h = rng.randint(2, 15), rng.randint(5, 40)
        shape = rng.choice(["cylinder", "cone"])
        return f"Find the volume and the total surface area of a {shape} with radius {r} cm and height {h} cm."
    length, width, height = rng.randint(3, 8), rng.randint(3, 7), rng.choice([2.4, 2.5, 2.7, 3])
    return (f"A room is {length} m long, {width} m wide and {height} m high. It has one door of 2 m by 0.9 m and "
            f"one window of 1.5 m by 1.2 m. If one litre of paint covers 10 m², how much paint is needed for two "
            f"coats on the walls?")


def _probability(rng):
    form = rng.randrange(4)
    if form == 0:
        red, blue, green = rng.randint(2, 9), rng.randint(2, 9), rng.randint(1, 6)
        event = rng.choice(["both are red", "they are different colours", "at least one is green",
                            "neither is blue"])
        return (f"A bag holds {red} red, {blue} blue and {green} green marbles. Two are drawn at random without "
                f"replacement. What is the probability that {event}?")
    if form == 1:
        event = rng.choice([f"the faces add up to {rng.randint(3, 11)}", "both dice show an even number",
                            "the two numbers differ by exactly 2", "the product of the numbers is odd",
                            "at least one die shows a six"])
        return f"If I throw a pair of fair six-sided dice, how likely is it that {event}?"
    if form == 2:
        tosses = rng.randint(4, 10)
        return (f"A fair coin is tossed {tosses} times. What is the probability of getting exactly "
                f"{rng.randint(1, tosses - 1)} heads? And of getting at least one head?")
    rate = rng.choice([1, 2, 5, 10])
    return (f"A test for a condition that affects {rate}% of people is 95% accurate for both positive and negative "
            f"cases. If someone tests positive, what is the probability that they actually have the condition?")


def _calculus(rng):
    form = rng.randrange(5)
    poly = _polynomial([(rng.randint(-6, 6) or 1, 4), (rng.randint(-9, 9), 3), (rng.randint(-9, 9), 2),
                        (rng.randint(-9, 9), 1), (rng.randint(-20, 20), 0)])
    if form == 0:
        return f"Find the derivative of f(x) = {poly}, and the value of f'(x) at x = {rng.randint(-3, 3)}."
    if form == 1:
        a, b = sorted(rng.sample(range(-3, 6), 2))
        return f"Evaluate the definite integral of {poly} with respect to x from x = {a} to x = {b}."
    if form == 2:
        a, b, n = rng.randint(2, 7), rng.randint(-9, 9), rng.randint(3, 8)
        return f"Differentiate y = ({a}x{_signed(b)})^{n} using the chain rule, and explain each step."
    if form == 3:
        k, func = rng.randint(2, 5), rng.choice(["sin(x)", "cos(x)", "e^x", "ln(x)"])
        return f"Use the product rule to differentiate g(x) = x^{k} · {func}."
    cubic = _polynomial([(1, 3), (rng.randint(-6, 6), 2), (rng.randint(-15, 0), 1), (rng.randint(-5, 5), 0)])
    return f"Find and classify the stationary points of y = {cubic}."


def _number_theory(rng):
    form = rng.randrange(4)
    if form == 0:
        base = rng.randint(2, 12)
        return (f"Find the greatest common divisor and the least common multiple of {base * rng.randint(3, 20)} and "
                f"{base * rng.randint(3, 20)}, using the Euclidean algorithm.")
    if form == 1:
        n = math.prod(rng.choice([2, 2, 3, 3, 5, 7, 11, 13]) for _ in range(rng.randint(3, 5)))
        return f"Write {n} as a product of prime factors, and list how many divisors it has."
    if form == 2:
        n = rng.randrange(101, 999, 2)
        return f"Is {n} a prime number? Explain the quickest way to check."
    return (f"What is the remainder when {rng.randint(2, 13)}^{rng.randint(20, 200)} is divided by "
            f"{rng.choice([5, 7, 9, 10, 11])}? Explain the pattern you use.")


def _series(rng):
    first, diff, count = rng.randint(-10, 30), rng.randint(2, 12), rng.randint(10, 60)
    form = rng.randrange(3)
    if form == 0:
        return (f"What is the sum of the first {count} terms of the arithmetic sequence {first}, {first + diff}, "
                f"{first + 2 * diff}, ...?")
    if form == 1:
        ratio = rng.choice([2, 3, "1/2", "1/3"])
        return f"A geometric series starts at {abs(first) + 1} and has common ratio {ratio}. Find the sum of its first {rng.randint(5, 12)} terms."
    k = rng.randint(3, 17)
    low = rng.randint(1, 200)
    return f"How many multiples of {k} lie between {low} and {low + rng.randint(100, 2000)}, inclusive?"


def _motion(rng):
    form = rng.randrange(3)
    if form == 0:
        dist, v1, v2 = rng.randint(10, 120), rng.randint(10, 30), rng.randint(10, 30)
        return (f"A cyclist rides {dist} km to a lake at {v1} km/h and returns by the same route at {v2} km/h. "
                f"What is the average speed for the whole trip?")
    if form == 1:
        gap, v1, v2 = rng.randint(100, 600), rng.randint(50, 120), rng.randint(50, 120)
        return (f"Two trains start at the same time from stations {gap} km apart and travel towards each other at "
                f"{v1} km/h and {v2} km/h. After how long do they meet, and how far from the first station?")
    dist, minutes = rng.choice([5, 10, 21.1, 42.2]), rng.randint(20, 300)
    return (f"{rng.choice(NAMES)} runs {dist} km in {minutes} minutes. What is the average pace per kilometre, and "
            f"the average speed in km/h?")


def _work_and_mixtures(rng):
    form = rng.randrange(3)
    if form == 0:
        a, b = rng.sample(range(2, 13), 2)
        return (f"One pipe fills a tank in {a} hours and a second pipe fills it in {b} hours. How long does it take "
                f"with both pipes open?")
    if form == 1:
        a, b = rng.sample(range(3, 16), 2)
        p, q = rng.sample(NAMES, 2)
        return (f"{p} can paint a room in {a} hours and {q} can paint it in {b} hours. If they work together, how "
                f"long will it take?")
    while True:
        strong, weak = rng.choice([30, 40, 50, 60, 80]), rng.choice([5, 10, 15, 20])
        target, volume = rng.randrange(weak + 5, strong, 5), rng.randint(2, 20)
        needed = volume * (target - weak) / (strong - target)
        if needed == int(needed):
            break
    return (f"How many litres of {strong}% salt solution must be mixed with {volume} litres of {weak}% salt "
            f"solution to obtain a mixture that is {target}% salt?")


def _statistics(rng):
    values = [rng.randint(1, 60) for _ in range(rng.randint(7, 11))]
    shown = ", ".join(str(v) for v in values)
    return rng.choice([
        f"Find the mean, median, mode and range of these numbers: {shown}.",
        f"A class recorded how many minutes each pupil read yesterday: {shown}. Calculate the mean and the standard deviation.",
        f"Here are daily sales figures: {shown}. Which is a better summary of a typical day, the mean or the median? Explain.",
    ])


ARRANGEMENT_WORDS = ["LETTER", "BALLOON", "COMMITTEE", "STATISTICS", "PEPPER", "ARRANGE", "SUCCESS", "BOOKKEEPER",
                     "CANADA", "TOMATO", "GARDEN", "PARALLEL"]


def _combinatorics(rng):
    form = rng.randrange(4)
    if form == 0:
        n = rng.randint(8, 20)
        return (f"In how many ways can a committee of {rng.randint(2, 5)} be chosen from {n} people? How does the "
                f"answer change if one person must always be included?")
    if form == 1:
        return f"How many distinct arrangements are there of the letters in the word {rng.choice(ARRANGEMENT_WORDS)}?"
    if form == 2:
        return (f"In how many ways can {rng.randint(4, 9)} people sit around a round table, if only their order "
                f"relative to each other matters?")
    digits = rng.randint(3, 6)
    return (f"How many {digits}-digit codes can be made from the digits 0-9 if no digit may repeat? What if "
            f"repetition is allowed?")


PYTHAGOREAN = [(3, 4, 5), (5, 12, 13), (6, 8, 10), (8, 15, 17), (7, 24, 25), (9, 12, 15), (20, 21, 29)]


def _pythagoras(rng):
    a, b, c = rng.choice(PYTHAGOREAN)
    form = rng.randrange(3)
    if form == 0:
        return (f"A ladder {c} m long leans against a wall with its foot {a} m from the base of the wall. How high "
                f"up the wall does it reach?")
    if form == 1:
        return f"A rectangular screen is {a * 4} inches wide and {b * 4} inches tall. How long is its diagonal?"
    x, y = rng.randint(-10, 10), rng.randint(-10, 10)
    return (f"What is the distance between the points ({x}, {y}) and ({x + a}, {y + b}) on a coordinate plane? "
            f"Also find the midpoint.")


def _algebra_misc(rng):
    form = rng.randrange(5)
    if form == 0:
        base, power, shift = rng.choice([2, 3, 5]), rng.randint(2, 6), rng.randint(1, 4)
        return f"Solve for x: {base}^(x + {shift}) = {base ** (power + shift)}."
    if form == 1:
        a, b, c, d = (rng.randint(-9, 9) or 1 for _ in range(4))
        return f"Compute the determinant and, if it exists, the inverse of the 2x2 matrix [[{a}, {b}], [{c}, {d}]]."
    if form == 2:
        a, c = rng.sample(range(2, 10), 2)
        return (f"Solve the inequality {a}x{_signed(rng.randint(-15, 15))} > {c}x{_signed(rng.randint(-15, 15))} "
                f"and describe the solution set on a number line.")
    if form == 3:
        parts = rng.sample(range(1, 8), 3)
        total = sum(parts) * rng.randint(5, 60)
        return f"Share {rng.choice(CURRENCIES)}{total} among three people in the ratio {parts[0]}:{parts[1]}:{parts[2]}."
    cur = rng.choice(CURRENCIES)
    name = rng.choice(NAMES)
    n1, p1, n2, p2 = rng.randint(2, 6), rng.randint(2, 9), rng.randint(2, 8), rng.randint(1, 3)
    return (f"{name} buys {n1} notebooks at {cur}{p1}.50 each and {n2} pens at {cur}{p2}.25 each, paying with a "
            f"{cur}50 note. How much change should {name} get?")


def _conversions(rng):
    return rng.choice([
        f"Convert {rng.randint(20, 130)} km/h to metres per second, showing the conversion factor.",
        f"How many seconds are there in {rng.randint(2, 30)} days? Show the calculation.",
        f"A room has a floor area of {rng.randint(10, 80)} square metres. What is that in square feet?",
        f"Convert {rng.randint(-20, 45)} degrees Celsius to Fahrenheit and to kelvin.",
        f"A car uses {rng.randint(4, 12)} litres of fuel per 100 km. What is that in miles per gallon (UK gallons)?",
    ])


PROOFS = [
    "the square of any odd integer is odd", "the sum of the first n odd numbers is n squared",
    "the square root of 3 is irrational", "the product of any three consecutive integers is divisible by 6",
    "the angles of a triangle add up to 180 degrees", "there is no largest even number",
    "n^3 - n is divisible by 6 for every integer n", "the sum of the first n positive integers is n(n + 1)/2",
    "a number is divisible by 9 if and only if the sum of its digits is divisible by 9",
    "the diagonals of a parallelogram bisect each other", "2^n > n for every positive integer n",
    "in any group of 13 people, at least two were born in the same month",
    "the exterior angles of any convex polygon add up to 360 degrees",
    "the product of two negative numbers is positive, starting from the distributive law",
]


def _proof(rng):
    statement = rng.choice(PROOFS)
    method = rng.choice(["", " Use proof by induction if it suits the statement.", " Keep the proof short and rigorous.",
                         " Explain the idea in plain words first, then give the formal proof."])
    return f"Prove that {statement}.{method}"


MATH_PROBLEMS = [
    _linear_equation, _linear_system, _quadratic, _percentages, _interest, _areas, _probability, _calculus,
    _number_theory, _series, _motion, _work_and_mixtures, _statistics, _combinatorics, _pythagoras,
    _algebra_misc, _conversions, _proof,
]

MATH = {
    "templates": [("{problem}", "working")],
    "constraints": {
        "working": [
            "Show your working.", "Explain each step.", "Give the exact answer and a decimal approximation.",
            "Check your answer at the end.", "Keep the explanation brief.",
        ],
    },
    "slots": {"problem": MATH_PROBLEMS},
}
