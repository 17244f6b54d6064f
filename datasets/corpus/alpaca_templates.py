"""Template tables for make_prompts.py: everyday assistant requests ("alpaca" style).

Twelve request types, each a category in the format described in prompt_templates.py.
Phrasing is deliberately conversational ("I have...", "Can you...") because these stand in
for the short everyday requests of AlpacaEval-like sets; all text is written for this corpus.
"""

import re

from passage_generators import (event_announcement, meeting_notes, news_report, product_description, quarterly_summary,
                                review_text, support_ticket)
from prompt_templates import COMMON_CONSTRAINTS

_C = COMMON_CONSTRAINTS

ADVICE = {
    "templates": [
        ("{advice_situation} Do you have any advice?", "length,format,tone"),
        ("{advice_situation} What would you suggest?", "length,format,brevity"),
        ("How can I {advice_goal}?", "length,format,example"),
        ("What's the best way to {advice_goal}? I've tried a few things already.", "length,format"),
        ("Do you have any tips on how to {advice_goal}?", "length,format,tone"),
        ("My friend {friend_situation}. How can I support them without overstepping?", "length,brevity,tone"),
    ],
    "constraints": {k: _C[k] for k in ("length", "brevity", "format", "tone", "example")},
    "slots": {
        "advice_situation": [
            "I just moved to a new city and don't know anyone.", "I have a job interview on Monday and I get very nervous.",
            "My flatmate never cleans up after himself.", "I keep waking up at 3 a.m. and can't get back to sleep.",
            "I'm starting university next month and I'm worried about money.", "My team at work missed a deadline because of me.",
            "I want to ask for a pay rise but I don't know how to bring it up.", "I've been offered two jobs and can't decide.",
            "My teenage son spends all evening on his phone.", "I find it hard to say no when people ask me for favours.",
            "I have a presentation in front of 200 people next week.", "I've been learning the guitar for a year and feel stuck.",
            "My neighbour's tree is dropping leaves all over my garden.", "I'm going travelling alone for the first time.",
            "I keep buying gym memberships and never going.", "My elderly parents live far away and I worry about them.",
            "I got some harsh feedback from my manager today.", "I want to change careers at 45.",
            "I have three exams in the same week.", "I'm hosting my in-laws for a whole week.",
            "I've started a new job and my manager is never available.", "My best friend forgot my birthday and I feel hurt.",
            "I want to get a dog but I work long hours.", "I'm about to become a team lead for the first time.",
            "My landlord wants to raise the rent by 15%.", "I've been putting off going to the dentist for years.",
            "I'm the only vegetarian in a family that loves barbecues.", "My savings are sitting in a current account doing nothing.",
            "I keep comparing myself to people on social media.", "My sister and I argued and haven't spoken for a month.",
        ],
        "advice_goal": [
            "stop procrastinating on big tasks at work", "keep my houseplants alive when I travel a lot",
            "spend less on groceries without eating badly", "get better sleep when I work late shifts",
            "make small talk at networking events", "keep a conversation going on a first date",
            "stay motivated while learning a language on my own", "build an emergency fund on a small salary",
            "get my toddler to eat more vegetables", "stay focused when working from home", "remember people's names",
            "write emails that people actually read", "keep my desk tidy for more than a week",
            "read more books when I only have short breaks", "deal with a noisy open-plan office",
            "make my small flat feel bigger", "keep in touch with old friends who live far away",
            "prepare for a long-haul flight with young children", "stop checking my phone first thing in the morning",
            "start running when I'm completely out of shape", "negotiate the price of a used car",
            "teach my dog to stop pulling on the lead", "become more confident speaking up in meetings",
            "pack light for a two-week trip", "drink more water during the day", "make my morning routine less rushed",
            "get through a pile of unread emails after a holiday", "cook more at home when I'm tired after work",
            "stop overthinking small decisions", "keep a journal going for more than a week", "say no to extra work politely",
            "make my commute less stressful", "keep my children's screen time reasonable", "plan a wedding without going into debt",
        ],
        "friend_situation": [
            "just lost their job", "is going through a breakup", "has been very stressed about exams", "just became a parent",
            "is moving abroad next month", "has been feeling lonely since retiring", "is recovering from surgery",
            "is caring for a sick parent",
        ],
    },
}


def _term_question(rng):
    term, field = rng.choice(DEFINITION_TERMS)
    quoted = re.sub(r"^(a|an|the) ", "", term)  # "a fermata" is quoted as "fermata"
    return rng.choice([
        f"What does the term \"{quoted}\" mean in {field}, and where might I come across it?",
        f"Can you define {term} in plain language and give an example from {field}?",
        f"I keep hearing the word \"{quoted}\" in {field}. What does it actually mean?",
        f"Explain what {term} means in {field}, in one or two sentences, as you would to a friend.",
        f"What is {term}? I came across it while reading about {field}.",
    ])


DEFINITION_TERMS = [
    ("latency", "computing"), ("amortisation", "accounting"), ("gerrymandering", "politics"), ("umami", "cooking"),
    ("terroir", "wine making"), ("a bear market", "investing"), ("confirmation bias", "psychology"), ("a sonnet", "poetry"),
    ("the rule of thirds", "photography"), ("an API", "software"), ("compound interest", "personal finance"),
    ("a filibuster", "politics"), ("photosynthesis", "biology"), ("a placebo", "medicine"), ("inflation", "economics"),
    ("a mortgage offset account", "personal finance"), ("kerning", "typography"), ("a haiku", "poetry"),
    ("an index fund", "investing"), ("impostor syndrome", "psychology"), ("a carbon footprint", "environmental policy"),
    ("a firewall", "computer security"), ("phishing", "computer security"), ("due diligence", "business"),
    ("a tariff", "trade"), ("a cliffhanger", "storytelling"), ("al dente", "cooking"), ("a sprint", "agile software teams"),
    ("an offside", "football"), ("a hat-trick", "sport"), ("mise en place", "professional kitchens"), ("tempo", "music"),
    ("a leitmotif", "film music"), ("a deductible", "insurance"), ("equity", "finance"), ("a white paper", "business"),
    ("the gig economy", "the labour market"), ("greenwashing", "marketing"), ("a fermata", "music"), ("bandwidth", "networking"),
    ("a chord progression", "music"), ("a biome", "geography"), ("a watershed", "geography"), ("a stock split", "investing"),
    ("open source", "software"), ("a zero-day vulnerability", "computer security"), ("a soft skill", "careers"),
    ("a closed-loop system", "engineering"), ("sourdough starter", "baking"), ("a tapas", "Spanish food"),
    ("a quorum", "meetings"), ("burnout", "the workplace"), ("a pull request", "software"), ("herd immunity", "public health"),
    ("a pension annuity", "retirement planning"), ("a capsule wardrobe", "fashion"), ("HDR", "photography"),
]

DEFINITION = {
    "templates": [("{term_question}", "brevity,audience,example,length")],
    "constraints": {k: _C[k] for k in ("length", "brevity", "audience", "example")},
    "slots": {"term_question": [_term_question]},
}

LIST = {
    "templates": [
        ("Can you list {n_items} {list_subject}, with a short note on each?", "tone,length"),
        ("Give me a list of {n_items} {list_subject}.", "brevity,tone"),
        ("Make a list of {n_items} {list_subject} and explain briefly why each one made the list.", "length"),
        ("What are {n_items} {list_subject}? Just the names are fine.", ""),
        ("I'm putting together a handout. Please list {n_items} {list_subject}.", "format,audience"),
    ],
    "constraints": {k: _C[k] for k in ("length", "brevity", "tone", "audience")} | {
        "format": ["Put them in alphabetical order.", "Number them.", "Group them into categories."]},
    "slots": {
        "list_subject": [
            "classic novels that are under 200 pages", "vegetables that grow well in pots on a balcony", "ways to reuse glass jars",
            "famous bridges and the cities they are in", "board games that work well with two players",
            "habits that help with focus", "questions to ask at the end of a job interview", "healthy snacks to take on a hike",
            "free things to do on a weekend", "common mistakes new managers make", "skills every adult should have",
            "inventions from the 19th century", "national parks worth visiting in Europe", "ways to cut your energy bill at home",
            "dog breeds that suit apartment living", "classic films from before 1960", "herbs that are easy to grow indoors",
            "ways to make a small bedroom feel calmer", "signs that a website might be a scam", "essential tools for a first toolbox",
            "foods that are high in iron", "things to check before buying a used bike", "instruments that adults can learn quickly",
            "ideas for a low-cost date night", "birds that are common in city parks", "rules for writing clear emails",
            "ways to practise a language every day", "questions to ask a landlord before renting", "stretches to do at a desk",
            "moons of the planets in our solar system", "female scientists who changed their fields",
            "things to pack for a rainy camping trip", "ways to keep children entertained on a train", "card games for a group",
            "simple ways to reduce plastic waste in the kitchen", "podcast topics for a history fan",
        ],
    },
}

FORMAL_SOURCES = [
    "hey, can u send me the report asap? thx", "sorry i can't come tmrw, something came up",
    "yo the meeting got moved to 3, don't be late lol", "we messed up your order, our bad, will fix it",
    "can you guys stop leaving dishes in the sink pls", "gonna be late, traffic is crazy",
    "just checking if you got my last email or nah", "the printer is broken again, someone fix it",
]
GRAMMAR_SOURCES = [
    "Me and him goes to the store yesterday and buyed three apple.", "Their going to there house after the the game.",
    "Each of the students have finished they're homework.", "The informations you gave me was very usefull.",
    "If I would have known, I would of came earlier.", "She don't like when peoples is late.",
    "Its important to check you're spelling before sending a email.", "Between you and I, the results was not good.",
    "The team are planning it's next meeting for monday.", "Less people came to the event then we expected.",
]
WORDY_SOURCES = [
    "At this point in time, we are currently in the process of reviewing all of the applications that have been submitted to us.",
    "Due to the fact that it was raining, the decision was made by the committee to postpone the outdoor event until a later date.",
    "In my personal opinion, I think that it would be a good idea for us to consider the possibility of meeting more often.",
    "It is absolutely essential that each and every member of staff reads the new policy document in its entirety.",
    "The reason why the project was delayed is because of the fact that several key suppliers did not deliver on time.",
    "For all intents and purposes, the new software basically does more or less the same thing as the old software did.",
]
PASSIVE_SOURCES = [
    "The window was broken by a football during the match.", "The cake was eaten before the guests arrived.",
    "Mistakes were made in the first draft of the report.", "The new library was opened by the mayor on Saturday.",
    "The email was sent to the wrong address by the intern.", "The final scene was filmed in a single take.",
]
NEUTRAL_SOURCES = [
    "Our shop will be closed on Monday for staff training. Orders placed over the weekend will be sent on Tuesday.",
    "The bus service to the airport now runs every twenty minutes instead of every half hour.",
    "Photosynthesis lets plants turn light, water and carbon dioxide into sugar and oxygen.",
    "The library is introducing a self-service kiosk, so members can borrow books without queueing.",
    "Regular exercise can improve sleep, mood and concentration, even in small amounts.",
    "The meeting has been moved to Thursday because the conference room is being repainted.",
]
REWRITE_OPERATIONS = [
    ("Rewrite this message in a more formal tone:", FORMAL_SOURCES),
    ("Turn this into a polite, professional message I could send to my manager:", FORMAL_SOURCES),
    ("Correct the grammar and spelling in this sentence:", GRAMMAR_SOURCES),
    ("Fix the mistakes in this sentence and explain each correction briefly:", GRAMMAR_SOURCES),
    ("Make this sentence more concise without losing its meaning:", WORDY_SOURCES),
    ("Rewrite this in plain English:", WORDY_SOURCES),
    ("Change this sentence from the passive to the active voice:", PASSIVE_SOURCES),
    ("Paraphrase this without changing its meaning:", NEUTRAL_SOURCES + PASSIVE_SOURCES),
    ("Rewrite this so it sounds friendlier and more enthusiastic:", NEUTRAL_SOURCES),
    ("Rewrite this for a ten-year-old reader:", NEUTRAL_SOURCES + WORDY_SOURCES),
    ("Turn this into a short, catchy social media post:", NEUTRAL_SOURCES),
    ("Rewrite this as a single bullet point of no more than twelve words:", NEUTRAL_SOURCES + WORDY_SOURCES),
]


def _rewrite(rng):
    instruction, sources = rng.choice(REWRITE_OPERATIONS)
    text = rng.choice(sources)
    return rng.choice([f"{instruction} \"{text}\"", f"{instruction}\n\n{text}",
                       f"Could you help me with this? {instruction} \"{text}\""])


REWRITE = {
    "templates": [("{rewrite_request}", "variants")],
    "constraints": {"variants": ["Give me two versions.", "Offer three alternatives.", "Keep it to one sentence.",
                                 "Tell me what you changed."]},
    "slots": {"rewrite_request": [_rewrite]},
}

COMPARISON_PAIRS = [
    ("renting", "buying a home", "someone who might move in three years"), ("an electric cooker", "a gas cooker", "a small kitchen"),
    ("a laptop", "a tablet", "a university student"), ("a cat", "a dog", "someone who lives in a small flat"),
    ("running", "swimming", "someone with sore knees"), ("e-books", "printed books", "a commuter"),
    ("the train", "a plane", "a 600 km trip"), ("butter", "margarine", "baking"), ("LED bulbs", "halogen bulbs", "a living room"),
    ("a credit card", "a debit card", "everyday spending"), ("yoga", "pilates", "improving posture"),
    ("a road bike", "a hybrid bike", "commuting on city streets"), ("Spanish", "French", "an English speaker's first foreign language"),
    ("a heat pump", "a gas boiler", "heating an old house"), ("tea", "coffee", "an afternoon pick-me-up"),
    ("a hostel", "a hotel", "a solo traveller on a budget"), ("Google Docs-style online editors", "desktop word processors", "a small team"),
    ("a savings account", "an index fund", "money I need in two years"), ("hardwood floors", "carpet", "a family with small children"),
    ("audiobooks", "podcasts", "a long daily drive"), ("a gym membership", "home workouts", "someone with little free time"),
    ("stainless-steel pans", "non-stick pans", "a beginner cook"), ("a film camera", "a digital camera", "learning photography"),
    ("a private tutor", "an online course", "learning maths for an exam"), ("an electric car", "a hybrid car", "a rural commute"),
    ("wool", "fleece", "hiking in cold weather"), ("a standing desk", "a regular desk", "working from home all day"),
    ("an apartment in the city centre", "a house in the suburbs", "a family with two children"),
    ("a Kindle-style e-reader", "a phone app", "reading before bed"), ("bottled water", "a tap filter", "a household of four"),
    ("a fixed-rate mortgage", "a variable-rate mortgage", "a first-time buyer"), ("a smartwatch", "a simple fitness band", "tracking runs"),
    ("oat milk", "cow's milk", "making lattes at home"), ("a campervan holiday", "a cottage holiday", "a family of four"),
    ("learning to code with books", "learning with video courses", "a self-taught beginner"),
    ("an air fryer", "a conventional oven", "cooking for one"), ("a freelance career", "a salaried job", "a graphic designer"),
    ("paper planners", "calendar apps", "a busy parent"), ("cycling to work", "taking the bus", "a 7 km commute"),
    ("rice", "quinoa", "a weekly meal prep"),
]


def _comparison(rng):
    a, b, purpose = rng.choice(COMPARISON_PAIRS)
    return rng.choice([
        f"What's the difference between {a} and {b}, especially for {purpose}?",
        f"Which is better for {purpose}: {a} or {b}?",
        f"Compare {a} and {b} in terms of cost, convenience and suitability for {purpose}.",
        f"What are the pros and cons of {a} compared with {b} for {purpose}?",
        f"I'm trying to decide between {a} and {b}. It's for {purpose}. What should I consider?",
    ])


COMPARISON = {
    "templates": [("{comparison_request}", "format,length,brevity")],
    "constraints": {k: _C[k] for k in ("length", "brevity")} | {
        "format": ["Put the comparison in a table.", "Use two short bullet lists.", "Finish with a clear recommendation."]},
    "slots": {"comparison_request": [_comparison]},
}

DISHES = [
    ("banana bread", ["eggs", "a loaf tin"]), ("a vegetable curry", ["coconut milk", "a spice grinder"]),
    ("pancakes", ["eggs", "milk"]), ("a lasagne", ["an oven", "ricotta"]), ("a mushroom risotto", ["wine", "arborio rice"]),
    ("a lentil soup", ["a blender", "stock cubes"]), ("chocolate brownies", ["butter", "eggs"]), ("a Spanish omelette", ["onions", "a non-stick pan"]),
    ("a stir-fry with tofu", ["a wok", "soy sauce"]), ("homemade pizza", ["yeast", "a pizza stone"]), ("hummus", ["tahini", "a food processor"]),
    ("a shepherd's pie", ["lamb mince", "an oven"]), ("fried rice", ["leftover rice", "eggs"]), ("a fruit crumble", ["oats", "butter"]),
    ("flatbreads", ["yeast", "an oven"]), ("a chickpea salad", ["fresh herbs", "lemons"]), ("a tomato pasta sauce", ["fresh tomatoes", "onions"]),
    ("scones", ["buttermilk", "a pastry cutter"]), ("a chilli con carne", ["beef", "kidney beans"]), ("granola", ["honey", "nuts"]),
]
FRIDGE_ITEMS = ["two eggs", "half a cabbage", "a block of feta", "some leftover rice", "three carrots", "a tin of chickpeas",
                "a courgette", "half a bag of spinach", "a lemon", "some cooked chicken", "a red pepper", "a tin of tuna",
                "a few potatoes", "a packet of tortillas", "some cheddar", "an onion", "a bunch of spring onions"]
RECIPE_CONSTRAINTS = ["takes under 30 minutes", "is vegetarian", "uses only one pan", "serves six", "a beginner could manage",
                      "can be frozen in portions", "is suitable for a picnic", "works for a dinner party"]


def _recipe(rng):
    dish, missing = rng.choice(DISHES)
    fridge = rng.sample(FRIDGE_ITEMS, rng.randint(3, 5))
    return rng.choice([
        f"Can you give me a recipe for {dish} that {rng.choice(RECIPE_CONSTRAINTS)}?",
        f"How do I make {dish} without {rng.choice(missing)}? I'd like the full recipe.",
        f"I have {', '.join(fridge[:-1])} and {fridge[-1]}. What can I cook for dinner tonight?",
        f"Suggest a lunch I can prepare on Sunday for the whole week using {', '.join(fridge[:-1])} and {fridge[-1]}.",
        f"My recipe for {dish} always turns out a bit disappointing. What are the common mistakes and how do I avoid them?",
        f"I'm cooking {dish} for friends this weekend. Could you give me a recipe and a suggestion for a side dish?",
    ])


RECIPE = {
    "templates": [("{recipe_request}", "format,brevity,units")],
    "constraints": {"brevity": ["Keep it short.", "Keep the method to five steps or fewer."],
                    "format": ["List the ingredients first, then numbered steps.", "Include a rough cooking time."],
                    "units": ["Use metric measurements.", "Use cups and spoons rather than grams."]},
    "slots": {"recipe_request": [_recipe]},
}

EMAIL = {
    "templates": [
        ("Write an email {email_purpose}.", "length,tone,subject"),
        ("Can you help me write a short email {email_purpose}?", "tone,subject"),
        ("Draft a concise email {email_purpose}, and suggest a subject line.", "tone"),
        ("Write a short, polite reply to {incoming_email}.", "length,tone"),
        ("Draft a follow-up email after {followup}.", "length,tone,subject"),
    ],
    "constraints": {"length": ["Keep it under {n_short} words.", "Keep it to three or four sentences."],
                    "tone": ["Keep it warm but professional.", "Make it sound friendly and relaxed.", "Use a formal tone."],
                    "subject": ["Include a clear subject line.", "Start with a subject line and end with a sign-off."]},
    "slots": {
        "email_purpose": [
            "to my child's teacher explaining that she'll miss school on Friday for a family wedding",
            "to a colleague asking to swap shifts next Tuesday", "to my landlord reporting that the boiler has stopped working",
            "to a client apologising for a late delivery and offering a discount", "to my team announcing that I'm leaving the company",
            "to a professor asking for an extension on an essay", "to a gym cancelling my membership",
            "to a neighbour inviting them to a street party", "to my manager asking to work from home two days a week",
            "to a hotel asking whether they can store our luggage after check-out", "to a supplier asking for an updated price list",
            "thanking an interviewer for their time", "to a new colleague introducing myself", "to a plumber asking for a quote",
            "to the organisers of a conference asking about accessibility", "to a customer explaining a delay in their refund",
            "to my book club suggesting next month's book", "to a former colleague asking for a reference",
            "to my child's football coach offering to help with transport", "to a restaurant asking about a private room for 20 people",
            "to my bank disputing a charge I don't recognise", "to a tenant reminding them that rent is five days late",
            "to my team proposing a new time for our weekly meeting", "to a charity offering to volunteer on weekends",
            "to a venue cancelling a booking and asking about the deposit", "to my doctor's surgery asking for a repeat prescription",
            "to a course tutor asking for feedback on my last assignment", "to an author telling them how much I enjoyed their book",
            "to the council reporting a broken street light", "to a colleague congratulating them on their promotion",
            "to parents in my child's class organising a collection for the teacher's gift", "to my internet provider asking to upgrade my plan",
            "to a photographer asking about availability for a family shoot", "to my flatmates proposing a cleaning rota",
            "to a seller asking whether a second-hand sofa is still available",
        ],
        "incoming_email": [
            "a client asking for a 30% discount", "a recruiter offering a job I'm not interested in",
            "a neighbour inviting me to a barbecue I can't attend", "a colleague who asked me to review a 60-page document by tomorrow",
            "a customer complaining that their order arrived damaged", "a friend asking to borrow my car for a week",
            "my manager asking me to join a project I don't have time for", "a journalist asking for a comment on our new product",
            "a parent asking why their child wasn't picked for the team", "a supplier announcing a 10% price rise",
            "an old classmate asking me to invest in their start-up", "a customer asking when an out-of-stock item will be back",
            "a colleague thanking me for covering their shifts", "a landlord asking to show the flat to new tenants on Saturday",
        ],
        "followup": [
            "a job interview last Thursday", "a networking event where I met a potential client", "sending an invoice that hasn't been paid",
            "a meeting where we agreed next steps", "a sales call with a small business", "a conference talk I gave",
            "a workshop I ran for new volunteers", "a quote I sent two weeks ago with no reply", "a coffee chat with a mentor",
            "a trial day at a restaurant kitchen",
        ],
    },
}

BRAINSTORM = {
    "templates": [
        ("Brainstorm {n_items} {brainstorm_subject}.", "tone,format"),
        ("I need some fresh ideas. Can you give me {n_items} {brainstorm_subject}?", "tone,brevity"),
        ("Help me come up with {brainstorm_names}.", "format,tone"),
        ("Give me a few creative ideas for {brainstorm_occasion}.", "brevity,tone"),
        ("What are some unusual {brainstorm_subject}? I've already thought of the obvious ones.", "format"),
    ],
    "constraints": {"tone": ["Be as creative as you can.", "Keep the ideas practical and cheap.", "Include at least one silly idea."],
                    "format": ["Put them in a numbered list.", "Add a one-line explanation for each."],
                    "brevity": ["Keep each idea to one line."]},
    "slots": {
        "brainstorm_subject": [
            "themes for a ten-year-old's birthday party", "ways to make a long car journey fun for kids", "fundraising ideas for a school library",
            "blog post ideas about home gardening", "team-building activities that don't involve alcohol", "things to do in a city on a rainy day",
            "small gifts for a new colleague", "side projects for learning to program", "ways to use up leftover bread",
            "conversation starters for a dinner party", "ideas for a community art project", "themes for a school science week",
            "ways to celebrate a friend's promotion", "ideas for a short film shot on a phone", "uses for an empty garage",
            "activities for a family reunion", "topics for a short talk at work", "ways to make a neighbourhood friendlier",
            "ways to welcome a new employee on their first day", "weekend projects for a small back garden",
            "healthy lunchbox ideas for a fussy eater", "ways to practise mental arithmetic with children",
            "themes for a monthly book club", "ways to make a boring commute useful", "questions for a quiz night about food",
            "low-cost ways to redecorate a rented flat", "ideas for a short story set in a laundrette",
            "activities for a rainy day at a holiday cottage", "ways to recycle old T-shirts",
            "ways to thank volunteers at a charity", "features for a simple habit-tracking app",
            "experiments kids can do with kitchen ingredients", "ways to celebrate a colleague's tenth work anniversary",
            "ideas for making a school playground greener",
        ],
        "brainstorm_names": [
            "names for a cat-sitting business", "names for a podcast about local history", "titles for a mystery novel set on a ferry",
            "names for a small bakery by the sea", "names for a five-a-side football team", "slogans for a community bike repair shop",
            "names for a board game about bees", "names for a newsletter about personal finance",
            "names for a vegan food truck", "taglines for a second-hand bookshop", "names for a choir of retired teachers",
            "names for a dog-walking app", "titles for a children's book about a lost sock", "names for a hiking club",
        ],
        "brainstorm_occasion": [
            "a surprise 60th birthday", "a wedding anniversary on a small budget", "a work leaving party", "a rainy bank holiday with children",
            "a first date that isn't dinner", "an office holiday party", "a weekend with friends in a cabin", "teaching fractions to nine-year-olds",
            "a baby shower for a couple who hate games", "a retirement gift for a keen gardener", "a street party in summer",
            "a school open evening", "a charity bake sale", "a grandparent's 80th birthday lunch",
        ],
    },
}

HOWTO = {
    "templates": [
        ("How do I {howto_task}? I've never done it before.", "format,length,brevity"),
        ("Can you walk me through how to {howto_task}, step by step?", "length,brevity,tools"),
        ("What's the easiest way to {howto_task} if I'm a complete beginner?", "format,length,tools"),
        ("Explain how to {howto_task}, and mention the mistakes people usually make.", "length,format"),
    ],
    "constraints": {k: _C[k] for k in ("length", "brevity")} | {
        "format": ["Use numbered steps.", "Use short bullet points."],
        "tools": ["List the tools I need first.", "Tell me how long it should take."]},
    "slots": {
        "howto_task": [
            "change a flat bicycle tyre", "set up a monthly budget in a spreadsheet", "unclog a bathroom sink without harsh chemicals",
            "iron a shirt properly", "back up all the photos on my phone", "tie a bowline knot", "write a one-page CV",
            "descale a kettle", "start a compost heap in a small garden", "jump-start a car with another car",
            "make pour-over coffee", "train for my first 5K run", "season a cast-iron pan", "get a red wine stain out of a carpet",
            "hang a heavy mirror on a plasterboard wall", "make a simple website with no coding", "set up two-factor authentication",
            "plant tulip bulbs", "sharpen a kitchen knife", "negotiate a lower phone bill", "write a thank-you note",
            "pack a suitcase so clothes don't crease", "bleed a radiator", "fold a fitted sheet", "make a paper aeroplane that flies far",
            "prepare my garden for winter", "clean a laptop keyboard safely", "replace a light switch safely",
            "teach a child to ride a bike", "make a podcast with just a phone", "read a nutrition label", "build a simple bookshelf",
            "repot a root-bound houseplant", "fix a dripping tap", "make a basic loaf of bread", "clean white trainers",
            "set up a simple home network with a mesh router", "write a short speech for a friend's birthday",
            "change a car's windscreen wiper blades", "remove old silicone sealant from a bath", "patch a small hole in a wall",
            "make a Gantt chart for a small project", "grow tomatoes from seed", "keep a sourdough starter alive",
            "create a strong password I can actually remember", "wash a wool jumper without shrinking it", "file a simple tax return",
        ],
    },
}


def _recommendation(rng):
    subject, contexts = rng.choice(RECOMMENDATION_SUBJECTS)
    context = rng.choice(contexts)
    return rng.choice([
        f"Can you recommend {subject} for {context}? Please explain why you chose it.",
        f"What would you suggest as {subject} for {context}?",
        f"I'm looking for {subject} for {context}. Any recommendations?",
        f"Recommend three options for {subject} that would suit {context}, with one reason each.",
    ])


RECOMMENDATION_SUBJECTS = [
    ("a board game", ["a family with young kids", "two players who like strategy", "a big group at a party", "a rainy holiday cottage"]),
    ("a houseplant", ["a dark bathroom", "someone who forgets to water plants", "a home with curious cats", "a sunny windowsill"]),
    ("a first programming language", ["someone who wants to analyse data", "a teenager who wants to make games", "a web designer"]),
    ("a form of exercise", ["someone with bad knees", "a busy parent with twenty minutes a day", "an office worker with back pain"]),
    ("a weekend trip", ["a couple on a tight budget", "someone who loves hiking", "a family with a baby", "a rainy November"]),
    ("a laptop", ["a student who mostly writes essays", "someone who edits videos", "a retired person who video-calls family"]),
    ("a hobby", ["a retired engineer", "someone who works from home and wants to get outside", "a teenager who loves drawing"]),
    ("a gift", ["a colleague who is leaving", "a grandparent who has everything", "a friend who just started running"]),
    ("a dog breed", ["a small apartment", "an active family with a garden", "a first-time owner"]),
    ("a kind of tea", ["someone cutting down on coffee", "a relaxing evening", "someone who likes strong flavours"]),
    ("a classic novel", ["someone who mostly reads thrillers", "a teenager who says books are boring", "a long flight"]),
    ("a podcast genre", ["a long daily commute", "someone learning about economics", "falling asleep"]),
    ("a musical instrument", ["an adult beginner with little spare time", "a seven-year-old", "someone who lives in a flat with thin walls"]),
    ("a note-taking method", ["a medical student", "someone who attends lots of meetings", "reading non-fiction books"]),
]

RECOMMENDATION = {
    "templates": [("{recommendation_request}", "brevity,length")],
    "constraints": {k: _C[k] for k in ("length", "brevity")},
    "slots": {"recommendation_request": [_recommendation]},
}

SUMMARY_SOURCES = [meeting_notes, news_report, product_description, support_ticket, event_announcement, quarterly_summary]


def _summary(rng):
    passage = rng.choice(SUMMARY_SOURCES)(rng)
    ask = rng.choice(["Summarise this in one sentence:", "Give me a two-line summary of the following:",
                      "What are the key points here? Use three bullet points.", "Write a short TL;DR for this:",
                      "Summarise the following for someone who has no time to read it:"])
    return f"{ask}\n\n{passage}"


SUMMARY = {
    "templates": [("{summary_request}", "")],
    "constraints": {},
    "slots": {"summary_request": [_summary]},
}

CLASS_GROUPS = [
    ("a fruit or a vegetable", ["apple", "carrot", "mango", "leek", "pear", "broccoli", "plum", "parsnip", "kiwi", "celery", "fig", "cauliflower"]),
    ("a mammal, a bird, a reptile or a fish", ["dolphin", "eagle", "gecko", "salmon", "bat", "penguin", "tortoise", "shark", "otter", "crocodile", "robin", "trout"]),
    ("a renewable or a non-renewable energy source", ["solar", "coal", "wind", "natural gas", "geothermal", "oil", "tidal", "uranium", "biomass", "hydropower"]),
    ("a string, wind or percussion instrument", ["cello", "flute", "snare drum", "harp", "clarinet", "xylophone", "banjo", "oboe", "timpani", "trumpet"]),
    ("a team sport or an individual sport", ["volleyball", "archery", "rugby", "fencing", "water polo", "golf", "cricket", "judo", "hockey", "triathlon"]),
    ("a solid, a liquid or a gas at room temperature", ["mercury", "oxygen", "iron", "ethanol", "helium", "salt", "bromine", "carbon dioxide", "wax", "neon"]),
    ("a country in Africa, Asia or South America", ["Kenya", "Peru", "Vietnam", "Ghana", "Chile", "Nepal", "Morocco", "Uruguay", "Laos", "Zambia", "Bolivia", "Mongolia"]),
    ("a noun, a verb or an adjective", ["quickly", "bridge", "swim", "happy", "decide", "window", "bright", "whisper", "courage", "ancient", "travel"]),
]
FACTS_AND_OPINIONS = [
    "Water boils at a lower temperature at high altitude.", "Summer is the best season of the year.",
    "The Pacific is the largest ocean on Earth.", "Jazz is more interesting than pop music.", "Paris is the capital of France.",
    "Cats make better pets than dogs.", "Spiders have eight legs.", "Breakfast is the most enjoyable meal.",
    "The human heart has four chambers.", "Modern architecture is ugly.", "Light travels faster than sound.",
    "Everyone should learn to play chess.",
]
MESSAGES = [
    "Congratulations! You have been selected to receive a free cruise. Reply with your bank details to claim.",
    "Hi, just confirming our meeting on Thursday at 10. Let me know if that still works.",
    "URGENT: your account will be closed today unless you verify your password at the link below.",
    "Your parcel could not be delivered. Pay a small fee of 1.99 to reschedule.",
    "Thanks for your order! Your receipt is attached, and your items will ship tomorrow.",
    "Dear friend, I am a prince who needs your help moving money out of the country.",
    "Reminder: the library book you borrowed is due back on Monday.",
]


def _classification(rng):
    form = rng.randrange(4)
    if form == 0:
        label, items = rng.choice(CLASS_GROUPS)
        chosen = rng.sample(items, rng.randint(5, 8))
        return rng.choice([f"Classify each of these as {label}: {', '.join(chosen)}.",
                           f"For each item, say whether it is {label}: {', '.join(chosen)}."])
    if form == 1:
        texts = [review_text(rng, rng.randint(1, 5)) + "." for _ in range(rng.randint(1, 3))]
        if len(texts) == 1:
            return f"Is the sentiment of this customer review positive, negative or mixed? Explain briefly.\n\n\"{texts[0]}\""
        numbered = "\n".join(f"{i + 1}. \"{t}\"" for i, t in enumerate(texts))
        return f"Label the sentiment of each review as positive, negative or mixed:\n{numbered}"
    if form == 2:
        chosen = rng.sample(FACTS_AND_OPINIONS, rng.randint(4, 6))
        numbered = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(chosen))
        return f"Label each of these statements as a fact or an opinion:\n{numbered}"
    chosen = rng.sample(MESSAGES, 3)
    numbered = "\n".join(f"{i + 1}. \"{m}\"" for i, m in enumerate(chosen))
    return f"Which of these messages look like spam or phishing, and why?\n{numbered}"


CLASSIFICATION = {
    "templates": [("{classification_request}", "")],
    "constraints": {},
    "slots": {"classification_request": [_classification]},
}

ALPACA_CATEGORIES = {
    "advice": ADVICE, "definition": DEFINITION, "list": LIST, "rewrite": REWRITE, "comparison": COMPARISON,
    "recipe": RECIPE, "email": EMAIL, "brainstorm": BRAINSTORM, "howto": HOWTO, "recommendation": RECOMMENDATION,
    "summary": SUMMARY, "classification": CLASSIFICATION,
}
