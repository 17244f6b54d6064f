"""Template tables for make_prompts.py: STEM and humanities (format: see prompt_templates.py)."""

from prompt_templates import COMMON_CONSTRAINTS


def _falling_object(rng):
    height = rng.choice([5, 10, 20, 45, 80, 125, 180])
    thing = rng.choice(["a stone", "a tennis ball", "a set of keys", "an apple", "a bolt"])
    place = rng.choice(["a bridge", "a cliff", "the roof of a building", "a balcony", "a tower"])
    return (f"If {thing} is dropped from {place} {height} m high, how long does it take to reach the "
            f"ground and how fast is it moving at impact? Ignore air resistance.")


def _ohms_law(rng):
    volts = rng.choice([3, 5, 9, 12, 24, 230])
    ohms = rng.choice([4, 10, 47, 100, 220, 1000])
    return (f"A {ohms} ohm resistor is connected across a {volts} V supply. What current flows, and how "
            f"much power does the resistor dissipate?")


def _heating_water(rng):
    litres = rng.choice([0.5, 1, 1.5, 2, 5])
    start, end = rng.choice([(10, 100), (15, 60), (20, 100), (4, 40)])
    watts = rng.choice([1000, 1500, 2000, 3000])
    return (f"How much energy is needed to heat {litres} litres of water from {start} °C to {end} °C, and "
            f"how long would a {watts} W kettle take if no heat were lost?")


def _half_life(rng):
    half_life = rng.choice([3, 5, 8, 12, 30])
    elapsed = half_life * rng.choice([2, 3, 4, 5])
    grams = rng.choice([16, 40, 64, 80, 100, 200])
    return (f"A radioactive sample has a half-life of {half_life} days. If you start with {grams} g, how "
            f"much remains after {elapsed} days? Explain the calculation.")


def _car_braking(rng):
    speed = rng.choice([36, 54, 72, 90, 108])
    decel = rng.choice([4, 5, 6, 8])
    return (f"A car travelling at {speed} km/h brakes with a constant deceleration of {decel} m/s². What "
            f"is its stopping distance, and how long does it take to stop?")


def _molar_mass(rng):
    compound, grams = rng.choice([("water", 36), ("sodium chloride", 117), ("glucose", 90),
                                  ("carbon dioxide", 88), ("calcium carbonate", 50), ("ammonia", 34)])
    return f"How many moles are in {grams} g of {compound}? Show how you work out the molar mass."


STEM = {
    "templates": [
        ("Explain how {phenomenon}.", "length,audience,example,jargon,format"),
        ("Can you explain, step by step, how {phenomenon}?", "length,audience,jargon"),
        ("What is the difference between {stem_pair}?", "length,format,example,audience"),
        ("Why {why_question}?", "length,audience,brevity,example"),
        ("Describe the process of {process}.", "length,format,audience,ending"),
        ("What are the main applications of {technology}?", "length,format,audience"),
        ("How would you design an experiment to test whether {hypothesis}?", "length,format,ending"),
        ("What are the advantages and disadvantages of {technology}?", "length,format,tone"),
        ("Summarise the key ideas of {theory}.", "length,audience,format,jargon"),
        ("Explain the concept of {concept} and give an everyday example.", "length,audience,jargon"),
        ("What would happen if {counterfactual}?", "length,audience,brevity"),
        ("{impact_question}", "length,format,tone"),
        ("Describe the structure and function of {bio_structure}.", "length,audience,format"),
        ("{physics_problem}", "steps"),
        ("{role_question}", "length,audience,example"),
        ("A student asks: \"{student_question}\" How would you answer them?", "audience,length,example"),
        ("What are the biggest open problems in {research_area} today?", "length,format,audience"),
        ("How do scientists measure {measurement}?", "length,audience,format"),
        ("Explain the engineering trade-offs involved in designing {design_object}.", "length,format,audience"),
    ],
    "constraints": {
        **{kind: COMMON_CONSTRAINTS[kind] for kind in ("length", "brevity", "format", "audience", "example", "jargon", "ending", "tone")},
        "steps": ["Show each step of the calculation.", "State the formulas you use.", "Give the answer to two significant figures."],
    },
    "slots": {
        "phenomenon": [
            "a rainbow forms", "a refrigerator keeps food cold", "GPS determines your position", "a vaccine trains the immune system",
            "a lithium-ion battery stores energy", "a nuclear reactor generates electricity", "noise-cancelling headphones work",
            "an induction hob heats a pan", "a heat pump warms a house", "a touchscreen detects your finger",
            "the ear turns sound into nerve signals", "a microwave oven heats food", "a jet engine produces thrust",
            "an MRI scanner produces images", "public-key encryption keeps messages private", "a solar cell produces electricity",
            "tides are caused by the Moon", "a compass needle finds north", "a hydroelectric dam generates power",
            "the kidneys filter blood", "an optical fibre carries data", "a hurricane forms", "a transistor switches current",
            "the greenhouse effect warms the planet", "a bicycle stays upright when moving", "a camera sensor records colour",
            "a wind turbine converts wind into electricity", "antibiotics kill bacteria", "a 3D printer builds objects",
            "plate tectonics creates mountains", "a suspension bridge carries its load", "a thermostat controls temperature",
        ],
        "stem_pair": [
            "weather and climate", "a virus and a bacterium", "speed and velocity", "mass and weight", "AC and DC electricity",
            "mitosis and meiosis", "an element and a compound", "heat and temperature", "RAM and storage",
            "nuclear fission and nuclear fusion", "a comet and an asteroid", "accuracy and precision", "DNA and RNA",
            "a series circuit and a parallel circuit", "an acid and a base", "renewable and non-renewable energy",
            "a meteor and a meteorite", "TCP and UDP", "latitude and longitude", "an allergy and an intolerance",
            "kinetic and potential energy", "a hypothesis and a theory", "a gene and a chromosome", "stress and strain",
            "bits and bytes", "a planet and a dwarf planet", "an insulator and a semiconductor",
        ],
        "why_question": [
            "is the sky blue during the day but red at sunset", "does ice float on water", "do we have seasons",
            "do onions make people cry", "does metal feel colder than wood at the same temperature",
            "can't we see stars during the day", "do cats always land on their feet", "does bread go stale",
            "do airplanes leave white trails in the sky", "do our ears pop on a plane", "does salt melt ice on roads",
            "is the ocean salty but rivers are not", "do leaves change colour in autumn", "do we need to sleep",
            "do batteries lose capacity over time", "does a spoon look bent in a glass of water",
            "are some people left-handed", "does hot water sometimes freeze faster than cold water",
            "do we get goosebumps", "do bubbles form when you open a fizzy drink",
            "does the Moon always show the same face to Earth", "is it hotter at the equator than at the poles",
        ],
        "process": [
            "water purification in a treatment plant",
            "fermentation in bread making", "how a star forms", "how rocks turn into soil", "blood clotting",
            "how steel is made", "how a smartphone chip is manufactured", "digestion in the human stomach",
            "how clouds form and produce rain", "how a new medicine is tested before approval", "how glass is made",
            "how recycling plants sort plastics", "how coffee beans become a cup of coffee", "how fossils form",
            "how the body heals a broken bone", "composting", "how paper is recycled", "how a cell makes a protein",
            "how oil is refined into petrol", "how a volcano erupts", "how a seed germinates",
        ],
        "technology": [
            "CRISPR gene editing", "drones", "quantum computers", "solid-state batteries", "3D printing", "machine translation",
            "satellite imaging", "blockchains", "heat pumps", "carbon capture", "lab-grown meat", "smart electricity grids",
            "self-driving cars", "wearable fitness trackers", "desalination", "LED lighting", "hydrogen fuel cells",
            "vertical farming", "cloud computing", "robotic surgery", "RFID tags", "geothermal energy",
        ],
        "impact_question": [
            "How have satellites changed weather forecasting?", "How has GPS changed logistics and delivery services?",
            "How has DNA sequencing changed medicine?", "How has lidar changed archaeology?", "How have drones changed farming?",
            "How has the internet changed scientific collaboration?", "How have space telescopes changed astronomy?",
            "How has 3D printing changed manufacturing?", "How have smartphones changed public health research?",
            "How has machine translation changed international business?", "How have LED lights changed indoor farming?",
            "How has containerised shipping changed global trade?", "How have wearable sensors changed sports science?",
            "How has cheap solar power changed energy access in rural areas?", "How has radiocarbon dating changed history?",
        ],
        "hypothesis": [
            "plants grow faster when exposed to music", "caffeine improves short-term memory",
            "a ball bounces higher when it is warm", "bread goes mouldy faster in a humid kitchen",
            "paper towels of different brands absorb different amounts of water",
            "the colour of a car affects how hot its interior gets in the sun",
            "salt water freezes at a lower temperature than fresh water", "birds prefer certain colours of bird feeder",
            "people remember words better when they hear them rather than read them",
            "a heavier pendulum swings with a different period",
        ],
        "theory": [
            "the theory of evolution by natural selection", "special relativity", "plate tectonics", "the germ theory of disease",
            "the Big Bang model", "the kinetic theory of gases", "the cell theory", "information theory",
            "the laws of thermodynamics", "Newton's laws of motion", "the atomic model of matter", "game theory",
        ],
        "concept": [
            "entropy", "inertia", "homeostasis", "half-life", "osmosis", "resonance", "feedback loops", "buoyancy",
            "friction", "catalysis", "the Doppler effect", "exponential growth", "natural selection", "pressure",
            "torque", "refraction", "symbiosis", "the placebo effect", "signal-to-noise ratio", "statistical significance",
            "density", "oxidation", "centripetal force", "biodiversity", "latent heat",
        ],
        "counterfactual": [
            "the Earth stopped rotating", "the Moon were twice as close to Earth", "humans could photosynthesise",
            "the speed of light were only 100 km/h", "all the insects on Earth disappeared", "water did not expand when it froze",
            "there were no friction", "the Earth had no magnetic field", "antibiotics stopped working", "the Sun were a red dwarf",
            "the Earth's axis had no tilt", "all the ice in Antarctica melted",
        ],
        "bio_structure": [
            "the human heart", "a neuron", "a leaf", "the mitochondrion", "the human lung", "a red blood cell",
            "the inner ear", "a tree's root system", "the human skin", "the small intestine", "the eye's retina", "a bird's wing",
        ],
        "physics_problem": [_falling_object, _ohms_law, _heating_water, _half_life, _car_braking, _molar_mass],
        "role_question": [
            "What role does the CPU cache play in a computer?", "What role does chlorophyll play in a plant?",
            "What role does the ozone layer play in protecting life on Earth?", "What role does a capacitor play in an electronic circuit?",
            "What role does the hippocampus play in the brain?", "What role do enzymes play in digestion?",
            "What role does the gearbox play in a car?", "What role does a router play in a home network?",
            "What role do white blood cells play in the immune system?", "What role does the pancreas play in the human body?",
            "What role does a heat sink play in a computer?", "What role do decomposers play in an ecosystem?",
            "What role does the thermocline play in the ocean?", "What role do mycorrhizal fungi play in a forest?",
            "What role does a catalyst play in a chemical reaction?", "What role does the DNS play on the internet?",
        ],
        "student_question": [
            "If atoms are mostly empty space, why can't I walk through walls?", "Why doesn't the Moon fall onto the Earth?",
            "How can light be both a wave and a particle?", "Why do we still have viruses if we have vaccines?",
            "How do we know how old the universe is?", "Why can't we just print more money to get rid of poverty?",
            "Why are there no green mammals?", "How does a computer understand ones and zeros?",
            "If evolution is true, why are there still monkeys?", "Why do heavy and light objects fall at the same speed?",
            "Why is glass transparent but wood is not?",
        ],
        "research_area": [
            "battery technology", "neuroscience", "climate modelling", "materials science", "cosmology",
            "antibiotic resistance", "robotics", "ocean science", "fusion energy",
        ],
        "measurement": [
            "the distance to faraway galaxies", "the age of rocks", "the temperature of the Sun", "the mass of the Earth",
            "sea level rise", "the speed of light", "earthquake strength", "blood pressure", "air quality in a city",
            "the depth of the ocean",
        ],
        "design_object": [
            "a bicycle frame", "an electric car battery", "a smartphone", "a bridge over a wide river", "a wind turbine blade",
            "a running shoe", "a coffee mug that keeps drinks warm", "a tall building in an earthquake zone",
            "a search engine", "a hospital ventilation system",
        ],
    },
}

HUMANITIES = {
    "templates": [
        ("What were the main causes of {historical_event}?", "length,format,audience"),
        ("How did {thinker} and {thinker2} differ in their views on {philosophy_issue}?", "length,format,tone"),
        ("Explain the economic concept of {econ_concept}.", "length,audience,example,jargon"),
        ("Discuss the significance of {art_movement} in the history of art.", "length,format,audience"),
        ("How did {invention} change society?", "length,format,audience,example"),
        ("What is the main argument for {philosophical_position}, and what is the strongest objection to it?", "length,audience,tone"),
        ("Analyse how {literary_theme}.", "length,tone,format"),
        ("What are the arguments for and against {policy}?", "format,length,tone"),
        ("Explain the role of {institution_role}.", "length,audience,format"),
        ("What can {history_lesson}?", "length,tone,ending"),
        ("Describe the origins and evolution of {tradition}.", "length,audience,format"),
        ("How might {school_of_thought} respond to the following dilemma: {dilemma}", "length,tone,brevity"),
        ("Summarise the debate over {debate}.", "length,format,tone,audience"),
        ("What were the long-term consequences of {historical_event}?", "length,format,ending"),
        ("Why do historians still disagree about {historical_question}?", "length,tone,audience"),
        ("How does {social_concept} shape everyday life? Give examples.", "length,audience,tone"),
        ("Compare how {comparison_subject} differed between {region} and {region2}.", "length,format"),
        ("What does the study of {discipline} contribute to our understanding of {discipline_target}?", "length,audience,tone"),
        ("Explain why {language_fact}.", "length,audience,example"),
    ],
    "constraints": {kind: COMMON_CONSTRAINTS[kind] for kind in (
        "length", "brevity", "format", "audience", "example", "jargon", "ending", "tone")},
    "slots": {
        "historical_event": [
            "the fall of the Western Roman Empire", "the French Revolution", "the First World War", "the Great Depression",
            "the collapse of the Soviet Union", "the Protestant Reformation", "the Industrial Revolution in Britain",
            "the American Civil War", "the end of the Ming dynasty", "the Meiji Restoration", "the partition of India",
            "the Black Death's spread across Europe", "the Russian Revolution of 1917", "the fall of Constantinople in 1453",
            "the Haitian Revolution", "the decline of the Maya cities", "the scramble for Africa", "the Irish Famine",
            "the rise of the Mongol Empire", "the Spanish Civil War", "the fall of the Berlin Wall", "the Dust Bowl",
            "the Glorious Revolution of 1688", "the Taiping Rebellion",
        ],
        "thinker": [
            "Plato", "Aristotle", "Confucius", "Immanuel Kant", "John Stuart Mill", "Thomas Hobbes", "John Locke",
            "Jean-Jacques Rousseau", "David Hume", "Simone de Beauvoir", "Friedrich Nietzsche", "Adam Smith",
            "Karl Marx", "Hannah Arendt", "René Descartes", "Mary Wollstonecraft", "Laozi", "Epicurus",
        ],
        "philosophy_issue": [
            "human nature", "the role of government", "the source of moral knowledge", "freedom", "happiness",
            "education", "the purpose of work", "justice", "property", "the good life",
        ],
        "econ_concept": [
            "opportunity cost", "comparative advantage", "supply and demand", "diminishing marginal returns", "moral hazard",
            "externalities", "price elasticity", "the tragedy of the commons", "economies of scale", "sunk costs",
            "inflation expectations", "the multiplier effect", "public goods", "information asymmetry", "monopsony",
            "purchasing power parity", "the paradox of thrift", "rent seeking", "network effects", "game-theoretic equilibrium",
        ],
        "art_movement": [
            "Impressionism", "the Italian Renaissance", "Cubism", "the Bauhaus", "Romanticism", "Surrealism",
            "Japanese ukiyo-e prints", "the Harlem Renaissance", "Art Nouveau", "Abstract Expressionism", "Baroque architecture",
            "the Arts and Crafts movement", "Pop Art", "Dutch Golden Age painting", "Gothic cathedrals",
        ],
        "invention": [
            "the printing press", "the telegraph", "the bicycle", "the shipping container", "the refrigerator",
            "the contraceptive pill", "the mechanical clock", "paper money", "the steam engine", "radio",
            "the washing machine", "the photograph", "the railway", "the personal computer", "the compass",
            "the postal service", "the printing of newspapers", "television",
        ],
        "philosophical_position": [
            "utilitarianism", "free will being compatible with determinism", "moral relativism", "the social contract theory of government",
            "virtue ethics", "scepticism about the external world", "animal rights", "effective altruism", "stoicism as a way of life",
            "existentialism", "pacifism", "the idea that knowledge is justified true belief",
        ],
        "literary_theme": [
            "Shakespeare's Macbeth explores the theme of ambition", "Shakespeare's Macbeth explores the theme of guilt",
            "Mary Shelley's Frankenstein explores the theme of responsibility", "Mary Shelley's Frankenstein explores the theme of isolation",
            "Jane Austen's Pride and Prejudice explores the theme of social class", "Jane Austen's Pride and Prejudice explores the theme of first impressions",
            "Homer's Odyssey explores the theme of homecoming", "Homer's Odyssey explores the theme of loyalty",
            "Dostoevsky's Crime and Punishment explores the theme of guilt", "Charles Dickens's Great Expectations explores the theme of social class",
            "Herman Melville's Moby-Dick explores the theme of obsession", "Cervantes's Don Quixote explores the theme of illusion and reality",
            "Sophocles's Antigone explores the conflict between law and conscience", "Leo Tolstoy's Anna Karenina explores the theme of social judgement",
            "Emily Brontë's Wuthering Heights explores the theme of revenge", "Franz Kafka's The Metamorphosis explores the theme of alienation",
            "Mark Twain's Adventures of Huckleberry Finn explores the theme of freedom", "Virginia Woolf's Mrs Dalloway explores the passage of time",
            "Charlotte Brontë's Jane Eyre explores the theme of independence", "George Eliot's Middlemarch explores the theme of ambition and compromise",
        ],
        "policy": [
            "a universal basic income", "compulsory voting", "rent control", "a tax on sugary drinks", "banning cars from city centres",
            "lowering the voting age to 16", "term limits for legislators", "free university tuition", "a four-day working week",
            "congestion charges", "nuclear power as part of a climate strategy", "school uniforms", "a wealth tax",
            "returning museum artefacts to their countries of origin", "a ban on short-haul flights",
        ],
        "institution_role": [
            "the Roman Senate in the late Republic", "medieval guilds in the economic life of European towns",
            "central banks in controlling inflation", "the United Nations in keeping the peace after 1945",
            "trade unions in the Industrial Revolution", "the Church in medieval European education",
            "public libraries in spreading literacy", "the free press in holding governments to account",
            "independent courts in protecting citizens' rights", "monasteries in preserving classical texts",
            "caravanserais in trade along the Silk Road", "coffeehouses in the spread of ideas in 17th-century London",
            "the Hanseatic League in northern European trade", "salons in the French Enlightenment",
        ],
        "history_lesson": [
            "the Dutch tulip mania teach us about financial bubbles", "the Cuban Missile Crisis teach us about diplomacy under pressure",
            "the 1918 influenza pandemic teach us about public health communication", "the building of the Panama Canal teach us about large infrastructure projects",
            "the Marshall Plan teach us about rebuilding after conflict", "the collapse of the Bronze Age civilisations teach us about fragile supply networks",
            "the Apollo programme teach us about scientific cooperation and funding", "the abolition of the slave trade teach us about social movements",
            "the Great Stink of London in 1858 teach us about urban planning", "the Montgomery bus boycott teach us about nonviolent protest",
            "the Dust Bowl teach us about land management and climate", "the Hanseatic League teach us about trade alliances",
        ],
        "tradition": [
            "the Olympic Games", "the Day of the Dead", "carnival", "afternoon tea in Britain", "Lunar New Year celebrations",
            "the marathon race", "the tradition of the birthday cake", "chess", "the sonnet", "Scottish ceilidh dancing",
            "the Japanese tea ceremony", "opera", "the public library", "Christmas markets", "the handshake",
        ],
        "school_of_thought": [
            "a utilitarian", "a Kantian", "a Stoic", "a virtue ethicist", "an existentialist", "a Confucian", "a libertarian",
        ],
        "dilemma": [
            "Should you lie to protect a friend's feelings?", "Is it wrong to break a promise to help a stranger in danger?",
            "Should a doctor ever withhold bad news from a patient?", "Is it acceptable to steal medicine you cannot afford?",
            "Should you report a colleague who bends the rules to help customers?", "Do we owe more to family than to strangers?",
        ],
        "debate": [
            "whether history is shaped more by individuals or by social forces", "whether art should have a moral purpose",
            "the authorship of Shakespeare's plays", "whether economic growth and environmental protection can coexist",
            "free speech on online platforms", "whether language shapes the way we think", "the ethics of zoos",
            "whether standardised testing measures ability", "the value of the humanities in higher education",
        ],
        "historical_question": [
            "why the Roman Republic collapsed", "the causes of the First World War", "why the Industrial Revolution began in Britain",
            "how the pyramids of Giza were built", "why the Bronze Age civilisations collapsed", "the impact of the Columbian exchange",
            "the legacy of the British Empire", "what caused the fall of the Aztec Empire",
        ],
        "social_concept": [
            "social class", "the division of labour", "peer pressure", "cultural capital", "bureaucracy", "nationalism",
            "consumerism", "social norms", "urbanisation", "individualism", "collective memory", "trust in institutions",
        ],
        "comparison_subject": [
            "the role of women in public life", "attitudes to education", "the organisation of farming", "approaches to medicine",
            "the status of merchants", "religious tolerance",
        ],
        "region": [
            "ancient Athens", "ancient Sparta", "Tang China", "the Abbasid Caliphate", "medieval France", "Renaissance Florence",
            "Edo Japan", "the Inca Empire", "Mughal India", "Victorian Britain",
        ],
        "discipline": ["archaeology", "linguistics", "anthropology", "art history", "economic history", "philosophy of science", "musicology"],
        "discipline_target": [
            "how people lived in the past", "human cooperation", "the spread of ideas", "how societies change",
            "what makes a culture distinctive",
        ],
        "language_fact": [
            "English spelling is so irregular", "so many English words come from French", "some languages have no word for 'blue'",
            "languages change over time", "Latin split into the Romance languages", "some languages use tones to change meaning",
            "pidgin languages can become full languages", "dialects can be hard to tell apart from languages",
        ],
    },
}
