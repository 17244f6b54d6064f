"""Generated documents (invoices, meeting notes, listings, ...) for extraction prompts.

Each PASSAGES entry is (generator, asks): the generator builds a fictional document with
random fields from a random.Random; asks are extraction requests that make sense for it.
All companies, people and products are invented by combining the word lists below.
"""

import datetime

from reasoning_generators import FEMALE_NAMES, MALE_NAMES, MONTHS, MONTH_DAYS, WEEKDAYS

SURNAMES = [
    "Okafor", "Lindqvist", "Moreau", "Tanaka", "Kowalski", "Haddad", "Fernández", "O'Brien", "Nguyen", "Schmidt",
    "Patel", "Rossi", "Mensah", "Ivanova", "Costa", "Byrne", "Yilmaz", "Novak", "Andersen", "Silva", "Reyes", "Khan",
]
COMPANY_FIRST = ["Northwind", "Bluefield", "Harbour", "Silverline", "Redwood", "Kestrel", "Lumen", "Copperleaf",
                 "Brightwater", "Ironbridge", "Meadowlark", "Orchard", "Granite", "Tideway", "Foxglove", "Summit"]
COMPANY_SECOND = ["Garden Supplies", "Logistics", "Print Works", "Coffee Roasters", "Software", "Bakery", "Outdoor Gear",
                  "Design Studio", "Electrical", "Catering", "Books", "Cycles", "Analytics", "Furniture", "Ceramics"]
COMPANY_SUFFIX = ["Ltd", "Inc.", "GmbH", "& Co.", "LLC", "S.L.", ""]
CITIES = ["Leeds", "Porto", "Lyon", "Osaka", "Gdańsk", "Austin", "Melbourne", "Toronto", "Nairobi", "Valencia",
          "Edinburgh", "Utrecht", "Bergen", "Cork", "Bologna", "Montevideo", "Wellington", "Halifax"]
CURRENCY = [("£", "GBP"), ("€", "EUR"), ("$", "USD")]


def person(rng):
    return f"{rng.choice(FEMALE_NAMES + MALE_NAMES)} {rng.choice(SURNAMES)}"


def company(rng):
    suffix = rng.choice(COMPANY_SUFFIX)
    return f"{rng.choice(COMPANY_FIRST)} {rng.choice(COMPANY_SECOND)}" + (f" {suffix}" if suffix else "")


def date(rng, style=None, weekday=False):
    """A random 2023-2025 date in one of three common formats, optionally with its real weekday."""
    year, month = rng.randint(2023, 2025), rng.randrange(12)
    day = rng.randint(1, MONTH_DAYS[month])
    style = style if style is not None else rng.randrange(3)
    if style == 0:
        text = f"{day} {MONTHS[month]} {year}"
    elif style == 1:
        text = f"{MONTHS[month]} {day}, {year}"
    else:
        text = f"{year}-{month + 1:02d}-{day:02d}"
    return f"{WEEKDAYS[datetime.date(year, month + 1, day).weekday()]} {text}" if weekday else text


def money(rng, symbol, low, high):
    return f"{symbol}{rng.randint(low * 100, high * 100) / 100:,.2f}"


INVOICE_ITEMS = ["Terracotta pot (large)", "Espresso beans, 1 kg", "A3 poster print", "Bike inner tube", "LED panel 60x60",
                 "Oak shelf bracket", "Consulting hour", "Chair repair", "Ceramic mug set", "Delivery charge",
                 "Wireless mouse", "Copy paper, box of 5 reams", "Catering platter for 10", "Hosting, monthly"]


def invoice(rng):
    symbol, _ = rng.choice(CURRENCY)
    lines, subtotal = [], 0
    for item in rng.sample(INVOICE_ITEMS, rng.randint(2, 5)):
        qty, price = rng.randint(1, 12), rng.randint(250, 9000) / 100
        subtotal += qty * price
        lines.append(f"- {qty} x {item} @ {symbol}{price:,.2f}")
    tax_rate = rng.choice([0, 7, 10, 20])
    total = subtotal * (1 + tax_rate / 100)
    if rng.random() < 0.25:  # some invoices carry an arithmetic error worth spotting
        total += rng.choice([-10, 5, 20])
    return "\n".join([
        f"INVOICE {rng.choice(['#', 'No. '])}{rng.choice(['INV', 'A', 'F'])}-{rng.randint(1000, 99999)}",
        f"From: {company(rng)}, {rng.randint(1, 200)} {rng.choice(['Mill Lane', 'High Street', 'Harbour Road', 'Station Approach'])}, {rng.choice(CITIES)}",
        f"Bill to: {company(rng)} (attn. {person(rng)})",
        f"Issued: {date(rng)}   Payment due within {rng.choice([14, 30, 45, 60])} days",
        *lines,
        f"Subtotal: {symbol}{subtotal:,.2f}",
        f"Tax ({tax_rate}%): {symbol}{subtotal * tax_rate / 100:,.2f}",
        f"Total due: {symbol}{total:,.2f}",
    ])


INVOICE_ASKS = [
    "Extract the vendor, the customer, the invoice number, the issue date and the total due as JSON.",
    "List every line item with its quantity, unit price and line total in a table.",
    "Check the arithmetic on this invoice and report any discrepancy you find.",
    "When is this invoice due, and how much should be paid? Answer in one sentence.",
]

MEETING_TOPICS = ["the website redesign", "the spring product launch", "the office move", "next year's budget",
                  "the customer survey results", "the volunteer rota", "the new onboarding process", "the warehouse audit"]
MEETING_TASKS = ["draft the announcement", "book the venue", "update the budget spreadsheet", "contact the supplier",
                 "write the test plan", "review the contract", "prepare the slides", "collect quotes from three printers",
                 "schedule user interviews", "fix the broken login page", "send the survey reminder", "order new laptops"]


def meeting_notes(rng):
    first_names = rng.sample(FEMALE_NAMES + MALE_NAMES, rng.randint(3, 6))  # distinct, so owners are unambiguous
    people = [f"{name} {rng.choice(SURNAMES)}" for name in first_names]
    topic = rng.choice(MEETING_TOPICS)
    actions = []
    for task in rng.sample(MEETING_TASKS, rng.randint(2, 4)):
        owner = rng.choice(first_names)
        when = rng.choice([f"by {rng.choice(WEEKDAYS[:5])}", f"before {date(rng, 0)}", "by the next meeting", "as soon as possible"])
        actions.append(rng.choice([f"{owner} will {task} {when}.", f"Action: {owner} to {task} {when}.",
                                   f"{owner} agreed to {task} {when}."]))
    decision = rng.choice(["the launch date stays as planned", "the budget will be cut by 10%", "the team will use a shared tracker",
                           "the supplier contract will be renewed for a year", "weekly check-ins will move to Thursdays"])
    absent = rng.choice(first_names)
    return (f"Notes - meeting about {topic}, {date(rng)}\nPresent: {', '.join(p for p in people if not p.startswith(absent + ' '))}"
            f" ({absent} sent apologies)\nDiscussion: the group reviewed progress on {topic}; "
            f"{rng.choice(first_names)} raised concerns about {rng.choice(['the timeline', 'costs', 'staffing', 'quality'])}. "
            f"It was decided that {decision}.\n" + "\n".join(actions))


MEETING_ASKS = [
    "List every action item with its owner and deadline as a table.",
    "Extract the action items as a JSON array of objects with the keys owner, task and due.",
    "Who attended the meeting, who was absent, and what was decided?",
    "Write a short follow-up message to the attendees that lists only the decisions and the action items.",
]

PRODUCT_KINDS = [
    ("portable speaker", ["battery life", "waterproof rating"]), ("electric kettle", ["capacity", "power"]),
    ("hiking backpack", ["capacity", "number of pockets"]), ("desk lamp", ["brightness", "colour temperature range"]),
    ("robot vacuum", ["battery life", "suction power"]), ("office chair", ["maximum load", "seat height range"]),
    ("smartwatch", ["battery life", "screen size"]), ("coffee grinder", ["number of grind settings", "bean capacity"]),
]
SPEC_VALUES = {
    "battery life": lambda r: f"{r.randint(6, 40)} hours", "waterproof rating": lambda r: r.choice(["IPX4", "IPX7", "IP67"]),
    "capacity": lambda r: f"{r.choice([1.2, 1.5, 1.7, 28, 35, 45])} litres", "power": lambda r: f"{r.choice([1800, 2200, 3000])} W",
    "number of pockets": lambda r: str(r.randint(3, 11)), "brightness": lambda r: f"{r.randint(4, 12) * 100} lumens",
    "colour temperature range": lambda r: f"{r.choice([2700, 3000])}-{r.choice([5000, 6500])} K",
    "suction power": lambda r: f"{r.randint(15, 60) * 100} Pa", "maximum load": lambda r: f"{r.randint(100, 160)} kg",
    "seat height range": lambda r: f"{r.randint(40, 46)}-{r.randint(50, 58)} cm", "screen size": lambda r: f"{r.choice([1.2, 1.4, 1.6, 1.9])} inches",
    "number of grind settings": lambda r: str(r.randint(12, 40)), "bean capacity": lambda r: f"{r.randint(100, 400)} g",
}


def product_description(rng):
    kind, specs = rng.choice(PRODUCT_KINDS)
    symbol, _ = rng.choice(CURRENCY)
    name = f"{rng.choice(COMPANY_FIRST)} {rng.choice(['Aero', 'Flex', 'Pro', 'Go', 'Nova', 'Trail', 'Home'])} {rng.randint(2, 9)}"
    colours = rng.sample(["charcoal", "sand", "forest green", "navy", "white", "coral", "slate blue"], rng.randint(1, 3))
    spec_text = " and ".join(f"a {spec} of {SPEC_VALUES[spec](rng)}" for spec in specs)
    return (f"Meet the {name}, our {rng.choice(['lightest', 'quietest', 'most versatile', 'toughest'])} {kind} yet. "
            f"It weighs just {rng.randint(3, 60) / 10} kg, measures {rng.randint(10, 60)} x {rng.randint(10, 50)} x "
            f"{rng.randint(5, 40)} cm and offers {spec_text}. Available in {', '.join(colours)}, it comes with a "
            f"{rng.choice([1, 2, 3, 5])}-year warranty. {rng.choice(['Launch price', 'Price', 'Now only'])}: "
            f"{money(rng, symbol, 25, 600)}, with free delivery on orders placed before {date(rng, 1)}.")


PRODUCT_ASKS = [
    "Extract the specifications into a table with the columns Attribute and Value.",
    "Return a JSON object with the keys name, price, weight_kg, dimensions_cm, colours and warranty_years.",
    "List only the measurable specifications, with their units, as bullet points.",
]

JOB_TITLES = ["Data Analyst", "Junior Backend Developer", "Warehouse Supervisor", "Marketing Coordinator", "Lab Technician",
              "UX Researcher", "Accounts Assistant", "Site Reliability Engineer", "Events Manager", "Pastry Chef"]
REQUIREMENTS = ["at least two years of relevant experience", "a full driving licence", "strong written English",
                "experience with SQL", "a food hygiene certificate", "familiarity with Python", "excellent organisational skills",
                "willingness to work occasional weekends", "a degree in a related field or equivalent experience"]


def job_posting(rng):
    symbol, _ = rng.choice(CURRENCY)
    low = rng.randint(24, 70) * 1000
    return (f"{company(rng)} is hiring a {rng.choice(JOB_TITLES)} to join our team in {rng.choice(CITIES)} "
            f"({rng.choice(['fully on-site', 'hybrid, three days in the office', 'remote within the country'])}). "
            f"The salary is {symbol}{low:,}-{symbol}{low + rng.randint(4, 20) * 1000:,} per year, plus "
            f"{rng.choice(['25 days of holiday', 'a yearly bonus', 'a cycle-to-work scheme', 'private health insurance'])}. "
            f"You will need {', '.join(rng.sample(REQUIREMENTS, 3))}. Applications close on {date(rng)}; send your CV "
            f"to {rng.choice(['jobs', 'careers', 'hello'])}@{rng.choice(COMPANY_FIRST).lower()}.example.")


JOB_ASKS = [
    "Extract the job title, company, location, working arrangement, salary range and closing date as JSON.",
    "List the requirements and the benefits separately.",
    "Summarise this job advert in one line of the form \"Title - Company - City - Salary\".",
]

# Complaints are tied to the product so that a review never blames a tent's battery.
REVIEW_ITEMS = {
    "blender": ["it is louder than expected", "the lid leaks", "the motor smells hot after a minute"],
    "rain jacket": ["the seams let water in", "the zip broke after a month", "it is smaller than the photos suggest"],
    "e-reader": ["the battery drains fast", "the screen froze twice", "the case scratches easily"],
    "air fryer": ["the basket coating is peeling", "it is louder than expected", "the timer is hard to read"],
    "yoga mat": ["it smells strongly of rubber", "it slides on wooden floors", "it is thinner than advertised"],
    "gaming headset": ["the microphone crackles", "it hurts my ears after an hour", "the battery drains fast"],
    "tent": ["one pole snapped on the first night", "the instructions are confusing", "condensation drips inside"],
    "electric toothbrush": ["the battery drains fast", "replacement heads are expensive", "it stopped charging after a month"],
}
GENERIC_COMPLAINTS = ["customer service never replied", "it arrived a week late"]
REVIEW_PRAISE = ["works exactly as described", "is very well made", "arrived quickly", "is easy to use", "is great value"]


def review_text(rng, stars):
    """One short review whose wording matches its star rating (4-5 good, 3 mixed, 1-2 bad)."""
    product = rng.choice(sorted(REVIEW_ITEMS))
    complaint = rng.choice(REVIEW_ITEMS[product] + GENERIC_COMPLAINTS)
    if stars >= 4:
        return f"The {product} {rng.choice(REVIEW_PRAISE)}"
    if stars == 3:
        return f"The {product} {rng.choice(REVIEW_PRAISE)}, but {complaint}"
    return rng.choice([f"Disappointed with the {product}: {complaint}, so it went back",
                       f"Honestly, {complaint}. Not buying this {product} again"])


def reviews(rng):
    lines = []
    for index in range(rng.randint(3, 5)):
        stars = rng.randint(1, 5)
        rating = rng.choice([f"{stars}/5", f"{stars} star{'s' if stars > 1 else ''}", "*" * stars, f"rating: {stars} out of 5"])
        lines.append(f"Review {index + 1} ({person(rng).split()[0]}, {rating}): {review_text(rng, stars)}.")
    return "\n".join(lines)


REVIEW_ASKS = [
    "For each review, give the product, the rating as a number from 1 to 5 and the main complaint, if any, as JSON lines.",
    "Which reviews are negative, and what problems do they mention? Answer as a table.",
    "Extract each reviewer's name and rating, then give the average rating.",
]

EVENT_KINDS = ["book fair", "jazz night", "repair café", "coding workshop", "farmers' market", "charity quiz",
               "film screening", "beginners' pottery class", "astronomy evening", "vintage clothing sale"]
VENUES = ["the Corn Exchange", "St Anne's Hall", "the Old Library", "Riverside Community Centre", "the Town Museum", "Unit 4, Canal Works"]


def event_announcement(rng):
    symbol, _ = rng.choice(CURRENCY)
    start = rng.randint(9, 19)
    child_price = rng.randint(0, 3)
    child_text = "free for under-16s" if child_price == 0 else f"{symbol}{child_price} for under-16s"
    return (f"Join us for the {rng.choice(['annual', 'first-ever', 'monthly', 'spring'])} {rng.choice(EVENT_KINDS)} at "
            f"{rng.choice(VENUES)}, {rng.choice(CITIES)}, on {date(rng, 0, weekday=True)}. Doors open at "
            f"{start}:{rng.choice(['00', '30'])} and the event runs until {start + rng.randint(2, 4)}:00. Tickets cost "
            f"{symbol}{rng.randint(3, 25)} ({child_text}); members get in free. "
            f"{rng.choice(['Step-free access is available.', 'Parking is limited, so please cycle or walk.', 'Bring your own mug!'])} "
            f"Questions? Contact {person(rng)} at events@{rng.choice(COMPANY_FIRST).lower()}.example.")


EVENT_ASKS = [
    "Extract the event name, date, start and end times, venue, city, ticket prices and contact person as JSON.",
    "Create a calendar entry from this announcement: title, date, time, location and a one-line description.",
    "What would a family of two adults and two children aged 10 and 12 pay in total? Show how you got the figure.",
]

NEWS_EVENTS = ["opened a new research centre", "announced a merger", "won a national innovation award",
               "launched a river clean-up project", "signed a partnership to build electric buses", "broke ground on a new bridge"]


def news_report(rng):
    org, partner = company(rng), company(rng)
    leader, official = person(rng), person(rng)
    city = rng.choice(CITIES)
    return (f"{city}, {date(rng)} - {org} {rng.choice(NEWS_EVENTS)} on Tuesday, together with {partner.rstrip('.')}. Chief executive "
            f"{leader} said the project would create {rng.randint(2, 40) * 10} jobs over {rng.randint(2, 6)} years and "
            f"cost about {rng.randint(3, 90)} million {rng.choice(['euros', 'pounds', 'dollars'])}. {official}, a "
            f"spokesperson for the {city} city council, welcomed the news but warned that "
            f"{rng.choice(['traffic on the ring road', 'housing costs', 'the approval process', 'local wages'])} would need "
            f"attention. Work is expected to start in {rng.choice(MONTHS)}.")


NEWS_ASKS = [
    "List the people, organisations and places mentioned in this report, each in its own group.",
    "List every number mentioned in the text and say what each one refers to.",
    "Extract who did what, where and when, as a single JSON object.",
]

INGREDIENTS = [("plain flour", "g"), ("butter", "g"), ("sugar", "g"), ("eggs", ""), ("milk", "ml"), ("red lentils", "g"),
               ("tinned tomatoes", "g"), ("onion", ""), ("garlic cloves", ""), ("olive oil", "tbsp"), ("grated cheese", "g"),
               ("spinach", "g"), ("rice", "g"), ("coconut milk", "ml"), ("lemon", ""), ("ground cumin", "tsp")]


def recipe_text(rng):
    chosen = rng.sample(INGREDIENTS, rng.randint(4, 7))
    parts = []
    for name, unit in chosen:
        amount = rng.choice([1, 2, 3, 4]) if unit in ("", "tbsp", "tsp") else rng.choice([50, 100, 150, 200, 250, 400])
        parts.append(f"{amount} {name}" if not unit else f"{amount} {unit} of {name}")
    return (f"My grandmother's {rng.choice(['Sunday', 'weeknight', 'rainy-day', 'holiday'])} "
            f"{rng.choice(['stew', 'bake', 'curry', 'pie', 'soup'])} is simple. Start by warming {parts[0]} in a large pan, "
            f"then add {parts[1]} and {parts[2]}. After ten minutes stir in {', '.join(parts[3:-1]) or 'a pinch of salt'}"
            f" and finally {parts[-1]}. Cook for {rng.randint(15, 60)} minutes at a gentle heat. It serves "
            f"{rng.randint(2, 8)} people.")


RECIPE_ASKS = [
    "List the ingredients with their quantities in a table.",
    "Turn this into a recipe card with an ingredients list and numbered steps.",
    "Extract the ingredients and scale the quantities to serve twice as many people.",
]

TRANSACTION_PLACES = [("FreshMart", "groceries"), ("City Transit", "transport"), ("Pizza Corner", "eating out"),
                      ("Power & Gas Co", "bills"), ("Corner Shop", "groceries"), ("RideNow", "transport"),
                      ("Noodle Bar", "eating out"), ("Waterworks", "bills"), ("BookNook", "leisure")]


def bank_statement(rng):
    symbol, _ = rng.choice(CURRENCY)
    month = rng.randrange(12)
    rows = []
    for day in sorted(rng.sample(range(1, 29), rng.randint(6, 10))):
        place, _ = rng.choice(TRANSACTION_PLACES)
        rows.append(f"{day:02d}/{month + 1:02d}  {place:<16} -{symbol}{rng.randint(150, 9000) / 100:.2f}")
    return "Date   Description       Amount\n" + "\n".join(rows)


BANK_ASKS = [
    "Group these transactions into groceries, transport, eating out, bills and other, and total each group.",
    "Which was the single largest payment, and what was the total spent over the whole period?",
    "Convert this statement into CSV with the columns date, merchant and amount.",
]

TICKET_PRODUCTS = ["PhotoSuite", "LedgerLite", "MeetSpace", "RouteMaster", "ShopDesk"]


def support_ticket(rng):
    return (f"Ticket #{rng.randint(10000, 99999)} from {person(rng)} ({company(rng)}), received {date(rng)}.\n"
            f"\"Since updating {rng.choice(TICKET_PRODUCTS)} to version {rng.randint(2, 9)}.{rng.randint(0, 12)}.{rng.randint(0, 9)} "
            f"on my {rng.choice(['Windows 11', 'macOS 14', 'Ubuntu 22.04', 'Android 14', 'iPadOS 17'])} machine, the app "
            f"{rng.choice(['crashes when I export a report', 'shows a blank screen on start-up', 'will not sync', 'logs me out every few minutes'])}. "
            f"The error says {rng.choice(['E', 'ERR-', 'code '])}{rng.randint(100, 999)}. It happens "
            f"{rng.choice(['every time', 'about half the time', 'only on the office Wi-Fi'])}. We have a deadline on "
            f"{rng.choice(WEEKDAYS[:5])}, so please treat this as urgent.\"")


TICKET_ASKS = [
    "Extract the ticket number, customer, company, product, version, operating system, error code and symptom as JSON.",
    "Classify this ticket's priority as low, medium or high, and list the details a support engineer needs first.",
]


def shipping_notice(rng):
    carrier = rng.choice(["ParcelJet", "SwiftPost", "GreenCourier", "Atlas Freight"])
    return (f"Good news, {person(rng).split()[0]}! Your order {rng.randint(100000, 999999)} from {company(rng)} has been "
            f"dispatched with {carrier}. Tracking number: {rng.choice(['PJ', 'SP', 'GC', 'AF'])}{rng.randint(10**8, 10**9 - 1)}. "
            f"It contains {rng.randint(1, 4)} item(s) and should arrive between {date(rng, 0)} and the following "
            f"{rng.choice(WEEKDAYS[:5])}. Delivery address: {rng.randint(1, 99)} {rng.choice(['Elm Road', 'Quay Street', 'Park View'])}, "
            f"{rng.choice(CITIES)}. If you are not home, the parcel will be left {rng.choice(['with a neighbour', 'at the nearest pickup point', 'in a safe place'])}.")


SHIPPING_ASKS = [
    "Extract the order number, seller, carrier, tracking number, delivery window and address as JSON.",
    "What should the customer expect if they are not at home? Quote the relevant detail and list the tracking information.",
]


def quarterly_summary(rng):
    regions = rng.sample(["Europe", "North America", "Asia-Pacific", "Latin America", "Africa", "Middle East"], rng.randint(3, 4))
    sentences = []
    for region in regions:
        growth = rng.randint(-12, 25)
        sentences.append(f"{region} brought in {rng.randint(3, 90) / 10} million with "
                         f"{'growth' if growth >= 0 else 'a decline'} of {abs(growth)}% year on year")
    return (f"{company(rng)} reported results for Q{rng.randint(1, 4)} {rng.randint(2022, 2025)}. "
            f"{'; '.join(sentences)}. Headcount rose to {rng.randint(80, 2000)}, and the board approved a dividend of "
            f"{rng.randint(5, 60)} cents per share.")


QUARTERLY_ASKS = [
    "Extract each region's revenue and growth rate as CSV with the columns region, revenue_millions and growth_percent.",
    "Which region grew fastest and which performed worst? Give the figures.",
]

PASSAGES = [
    (invoice, INVOICE_ASKS), (meeting_notes, MEETING_ASKS), (product_description, PRODUCT_ASKS), (job_posting, JOB_ASKS),
    (reviews, REVIEW_ASKS), (event_announcement, EVENT_ASKS), (news_report, NEWS_ASKS), (recipe_text, RECIPE_ASKS),
    (bank_statement, BANK_ASKS), (support_ticket, TICKET_ASKS), (shipping_notice, SHIPPING_ASKS),
    (quarterly_summary, QUARTERLY_ASKS),
]

INTRO_FORMS = [
    "{ask}\n\n{passage}",
    "Read the text below. {ask}\n\n{passage}",
    "{passage}\n\n{ask}",
    "Here is a document:\n\n{passage}\n\n{ask}",
]


def _extraction(rng):
    generator, asks = rng.choice(PASSAGES)
    return rng.choice(INTRO_FORMS).format(ask=rng.choice(asks), passage=generator(rng))


EXTRACTION = {
    "templates": [("{extraction_task}", "strict")],
    "constraints": {
        "strict": [
            "If a value is missing, write null.", "Return only the requested output, with no commentary.",
            "Keep the original spelling of names.", "Use ISO 8601 format (YYYY-MM-DD) for any dates.",
        ],
    },
    "slots": {"extraction_task": [_extraction]},
}
