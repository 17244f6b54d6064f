"""Template tables for make_prompts.py: coding (format: see prompt_templates.py).

Code snippets are inserted as slot values, never parsed as templates, so their braces are
safe. Snippets and the language named in the prompt always come from the same tuple.
"""

GENERAL_LANGUAGES = ["Python", "C++", "JavaScript", "TypeScript", "Java", "Rust", "Go", "C#", "Kotlin", "Swift", "Ruby"]

FUNCTION_TASKS = [
    "reverses the order of words in a sentence while keeping punctuation attached to its word",
    "checks whether a string is a palindrome, ignoring case, spaces and punctuation",
    "returns the k most frequent elements of a list",
    "merges overlapping intervals given as pairs of start and end points",
    "parses a duration string such as \"1h30m15s\" into a number of seconds",
    "converts an integer between 1 and 3999 to Roman numerals",
    "validates an IPv4 address given as a string",
    "rotates a square matrix 90 degrees clockwise in place",
    "computes the Levenshtein distance between two strings",
    "flattens an arbitrarily nested list of integers",
    "groups a list of words into sets of anagrams",
    "finds all prime numbers below n using the sieve of Eratosthenes",
    "performs binary search on a sorted array and returns the insertion point if the value is missing",
    "detects whether a singly linked list contains a cycle",
    "checks whether the brackets in an expression are balanced",
    "compresses a string with run-length encoding and decodes it again",
    "counts the islands in a grid of 0s and 1s",
    "returns the length of the longest substring without repeating characters",
    "formats a number of bytes as a human-readable size such as \"3.2 MB\"",
    "splits a list into batches of a given size",
    "retries a failing operation with exponential backoff and a maximum number of attempts",
    "finds the kth largest element of an array using a heap",
    "evaluates an arithmetic expression written in reverse Polish notation",
    "removes duplicates from a list while preserving the original order",
    "converts snake_case identifiers to camelCase",
    "computes the power set of a small set",
    "returns the fewest coins needed to make an amount from given denominations",
    "finds the contiguous subarray with the largest sum",
    "checks whether one string is a rotation of another",
    "computes the day of the week for a date without using a date library",
    "finds the longest common prefix of a list of strings",
    "converts a non-negative integer to a string in any base from 2 to 36",
    "parses the query string of a URL into a map of keys to lists of values",
    "generates a random password with at least one digit, one uppercase letter and one symbol",
    "computes a moving average over a sliding window of a numeric series",
    "returns all pairs of numbers in an array that add up to a target",
    "transposes a matrix stored as a list of rows",
    "wraps a long line of text at a given width without breaking words",
    "checks whether a Sudoku grid filled so far breaks any rules",
    "computes the shortest path between two nodes of an unweighted graph using breadth-first search",
]

DATA_STRUCTURES = [
    ("a least-recently-used cache with a fixed capacity", "get and put in constant time"),
    ("a trie", "insert, exact search and prefix search"),
    ("a queue built from two stacks", "enqueue, dequeue and peek"),
    ("a circular buffer of fixed size", "push, pop and checking whether it is full"),
    ("a min-heap", "push, pop and peek"),
    ("a disjoint-set (union-find) structure", "union and find with path compression"),
    ("a token-bucket rate limiter", "checking whether a request is allowed at a given time"),
    ("a simple bank account", "deposits, withdrawals that reject overdrafts, and a transaction history"),
    ("an undirected graph", "adding edges, listing neighbours and checking connectivity"),
    ("a priority task list", "adding tasks with priorities and taking the most urgent one"),
    ("a library catalogue", "adding books, lending them out and listing overdue loans"),
    ("a parking garage", "parking and removing cars, and reporting free spaces per floor"),
    ("an inventory for a small shop", "adding stock, selling items and warning about low stock"),
    ("a 2D vector", "addition, scaling, dot product and length"),
]

CONCEPT_PAIRS = [
    ("Python", "lists and tuples"), ("Python", "`is` and `==`"), ("Python", "generators and lists"),
    ("C++", "std::vector and std::array"), ("C++", "references and pointers"), ("C++", "std::unique_ptr and std::shared_ptr"),
    ("JavaScript", "`==` and `===`"), ("JavaScript", "`let`, `const` and `var`"), ("JavaScript", "promises and callbacks"),
    ("Rust", "String and &str"), ("Rust", "Box, Rc and Arc"), ("Rust", "traits and generics"),
    ("Go", "buffered and unbuffered channels"), ("Go", "slices and arrays"), ("Go", "value and pointer receivers"),
    ("Java", "interfaces and abstract classes"), ("Java", "checked and unchecked exceptions"),
    ("SQL", "WHERE and HAVING"), ("SQL", "INNER JOIN and LEFT JOIN"), ("SQL", "UNION and UNION ALL"),
    ("C", "malloc and calloc"), ("C", "arrays and pointers"), ("TypeScript", "type aliases and interfaces"),
    ("TypeScript", "`unknown` and `any`"), ("C#", "structs and classes"), ("Kotlin", "`val` and `var`"),
]

HOWTO_TASKS = [
    ("Python", "read a large CSV file without loading it all into memory"),
    ("Python", "run several HTTP requests concurrently with asyncio"),
    ("Python", "write a command-line tool with subcommands using argparse"),
    ("Rust", "share mutable state between threads safely"),
    ("Rust", "return different error types from one function"),
    ("Go", "cancel a long-running goroutine with a context"),
    ("Go", "write a table-driven test"),
    ("JavaScript", "fetch JSON from an API and handle network errors"),
    ("JavaScript", "deep-copy an object that contains dates and nested arrays"),
    ("C++", "read a text file line by line and count the words"),
    ("C++", "sort a vector of structs by two fields"),
    ("Java", "read a properties file and fall back to default values"),
    ("TypeScript", "type a function that accepts either a string or an array of strings"),
    ("C#", "use LINQ to group orders by customer and sum their totals"),
    ("Kotlin", "use data classes and copy() to update immutable objects"),
    ("Swift", "decode JSON into a struct with Codable"),
    ("Ruby", "read a YAML configuration file and validate required keys"),
    ("SQL", "find duplicate rows in a table"),
    ("Bash", "rename every .jpeg file in a folder to .jpg"),
    ("Python", "profile a slow function to see where the time goes"),
]

CONCEPTS = [
    "closures", "recursion", "memoisation", "dependency injection", "immutability", "generics", "async/await",
    "iterators", "pattern matching", "RAII", "higher-order functions", "polymorphism", "interfaces", "error handling with result types",
    "lazy evaluation", "event loops", "mutexes", "unit testing with mocks", "encapsulation", "tail recursion",
]

ALGORITHMS = [
    "binary search", "quicksort", "merge sort", "heap sort", "Dijkstra's algorithm with a binary heap", "breadth-first search",
    "depth-first search", "insertion sort", "the Floyd-Warshall algorithm", "Prim's minimum spanning tree algorithm",
    "Kruskal's minimum spanning tree algorithm", "the Knuth-Morris-Pratt string search", "topological sorting",
    "the Rabin-Karp string search", "bubble sort", "counting sort", "A* search on a grid",
    "radix sort", "AVL tree insertion with rebalancing", "reservoir sampling",
]

SQL_SCHEMAS = [
    ("customers(id, name, country) and orders(id, customer_id, order_date, total)", [
        "lists the five customers with the highest total spending in 2023",
        "shows the number of orders and the average order value per country",
        "finds customers who have never placed an order",
        "returns each customer's most recent order date",
    ]),
    ("employees(id, name, department_id, salary, hire_date) and departments(id, name)", [
        "finds the highest-paid employee in each department",
        "lists departments whose average salary is above the company average",
        "counts how many people were hired in each year",
        "shows each employee's salary as a percentage of their department's total",
    ]),
    ("books(id, title, author, year) and loans(id, book_id, member_id, loan_date, return_date)", [
        "lists books that are currently on loan and overdue by more than 14 days",
        "finds the ten most borrowed books of all time",
        "shows members who borrowed more than five books last month",
        "finds authors none of whose books have ever been borrowed",
    ]),
    ("students(id, name), courses(id, title) and enrolments(student_id, course_id, grade)", [
        "lists each course with its number of students and average grade",
        "finds students enrolled in every course",
        "ranks students by average grade, handling ties",
        "finds courses where nobody scored below 50",
    ]),
    ("sensors(id, location) and readings(sensor_id, taken_at, temperature)", [
        "returns the daily minimum, maximum and mean temperature for each sensor",
        "finds sensors that have not reported in the last 24 hours",
        "detects readings that are more than 10 degrees above the previous reading from the same sensor",
    ]),
]

REGEX_TARGETS = [
    "UK postcodes", "dates in the format YYYY-MM-DD", "hexadecimal colour codes such as #1a2B3c", "US phone numbers with optional area codes",
    "times in 24-hour format", "simple email addresses", "IPv4 addresses", "words that start and end with the same letter",
    "numbers with optional thousands separators and decimals", "HTML opening tags with attributes", "semantic version numbers like 1.4.2",
    "lines that contain a TODO comment", "repeated consecutive words such as \"the the\"",
]

SHELL_TASKS = [
    "finds the ten largest files under a directory", "backs up a folder into a dated tar.gz archive and keeps only the last seven backups",
    "counts the lines of code in every .py file in a project", "checks whether a list of websites respond with HTTP 200",
    "watches a log file and prints lines containing ERROR", "renames photos using their modification date",
    "prints the disk usage of each user's home directory", "extracts unique IP addresses from an access log and counts them",
    "waits for a TCP port to open, with a timeout", "converts all .wav files in a folder to .mp3",
]

WEB_TASKS = [
    "shows a countdown timer to a date the user enters", "lets the user add items to a to-do list and remembers them in localStorage",
    "converts between Celsius and Fahrenheit as the user types", "displays a random colour palette when a button is pressed",
    "validates a sign-up form and shows errors next to each field", "draws a simple bar chart on a canvas from an array of numbers",
    "filters a table of products as the user types in a search box", "implements a light and dark theme toggle",
]

EXPLAIN_SNIPPETS = [
    ("Python", "def f(xs):\n    seen = set()\n    return [x for x in xs if not (x in seen or seen.add(x))]"),
    ("JavaScript", "const g = (fn, ms) => {\n  let t;\n  return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };\n};"),
    ("C++", "template <typename T>\nT clamp(T v, T lo, T hi) {\n    return v < lo ? lo : (hi < v ? hi : v);\n}"),
    ("Rust", "fn total(items: &[(String, u32)]) -> u32 {\n    items.iter().map(|(_, n)| n).sum()\n}"),
    ("Go", "func worker(jobs <-chan int, out chan<- int) {\n\tfor j := range jobs {\n\t\tout <- j * j\n\t}\n}"),
    ("SQL", "SELECT d.name, COUNT(e.id)\nFROM departments d\nLEFT JOIN employees e ON e.department_id = d.id\nGROUP BY d.name;"),
    ("Python", "from functools import lru_cache\n\n@lru_cache(maxsize=None)\ndef ways(n):\n    return 1 if n <= 1 else ways(n - 1) + ways(n - 2)"),
    ("Java", "Map<String, Long> counts = words.stream()\n    .collect(Collectors.groupingBy(w -> w, Collectors.counting()));"),
    ("C", "size_t n = 0;\nwhile (s[n] != '\\0') {\n    n++;\n}\nreturn n;"),
    ("TypeScript", "function pick<T, K extends keyof T>(obj: T, keys: K[]): Pick<T, K> {\n  const out = {} as Pick<T, K>;\n  for (const k of keys) out[k] = obj[k];\n  return out;\n}"),
]

BUGGY_SNIPPETS = [
    ("Python", "def average(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values) - 1"),
    ("Python", "def add_item(item, items=[]):\n    items.append(item)\n    return items"),
    ("JavaScript", "for (var i = 0; i < 3; i++) {\n  setTimeout(() => console.log(i), 100);\n}"),
    ("C++", "int* make_array(int n) {\n    int values[n];\n    for (int i = 0; i < n; ++i) values[i] = i;\n    return values;\n}"),
    ("C", "char *copy(const char *s) {\n    char *d = malloc(strlen(s));\n    strcpy(d, s);\n    return d;\n}"),
    ("Go", "func sum(xs []int) int {\n\ttotal := 0\n\tfor i := 0; i <= len(xs); i++ {\n\t\ttotal += xs[i]\n\t}\n\treturn total\n}"),
    ("Java", "public boolean sameName(String a, String b) {\n    return a == b;\n}"),
    ("Python", "def is_leap(year):\n    return year % 4 == 0 and year % 100 != 0"),
    ("JavaScript", "function max(arr) {\n  let best = 0;\n  for (const x of arr) if (x > best) best = x;\n  return best;\n}"),
    ("Rust", "fn first_word(s: &String) -> &str {\n    let bytes = s.as_bytes();\n    for (i, &b) in bytes.iter().enumerate() {\n        if b == b' ' { return &s[..i + 1]; }\n    }\n    &s[..]\n}"),
]

PYTHON_TO_TRANSLATE = [
    "def word_counts(text):\n    counts = {}\n    for word in text.lower().split():\n        counts[word] = counts.get(word, 0) + 1\n    return counts",
    "def chunks(xs, n):\n    return [xs[i:i + n] for i in range(0, len(xs), n)]",
    "def fizzbuzz(n):\n    for i in range(1, n + 1):\n        out = ('Fizz' if i % 3 == 0 else '') + ('Buzz' if i % 5 == 0 else '')\n        print(out or i)",
    "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a",
    "def running_max(xs):\n    best, out = float('-inf'), []\n    for x in xs:\n        best = max(best, x)\n        out.append(best)\n    return out",
]


def _explain_code(rng):
    language, code = rng.choice(EXPLAIN_SNIPPETS)
    ask = rng.choice(["What does this {0} code do, and how could it be improved?",
                      "Explain this {0} snippet line by line.",
                      "Describe what this {0} code does and point out any edge cases it misses."]).format(language)
    return f"{ask}\n\n{code}"


def _fix_bug(rng):
    language, code = rng.choice(BUGGY_SNIPPETS)
    ask = rng.choice(["Find and fix the bug in this {0} code:", "This {0} code does not behave as intended. What is wrong, and how would you fix it?",
                      "Review this {0} code and correct any mistakes:"]).format(language)
    return f"{ask}\n\n{code}"


def _translate_code(rng):
    target = rng.choice(["JavaScript", "Go", "Rust", "C++", "Java", "Kotlin", "C#", "Ruby"])
    return f"Translate this Python function into idiomatic {target}:\n\n{rng.choice(PYTHON_TO_TRANSLATE)}"


def _concept_pair(rng):
    language, pair = rng.choice(CONCEPT_PAIRS)
    questions = [f"What is the difference between {pair} in {language}?",
                 f"Explain {pair} in {language}, and when each is the better choice."]
    if "," not in pair:  # "A and B" reads naturally as "A rather than B"; lists of three do not
        questions.append(f"In {language}, when should I use {pair.replace(' and ', ' rather than ', 1)}?")
    return rng.choice(questions)


def _howto(rng):
    language, task = rng.choice(HOWTO_TASKS)
    return rng.choice([f"How do I {task} in {language}?", f"Show me how to {task} in {language}, with a short example."])


def _sql(rng):
    schema, tasks = rng.choice(SQL_SCHEMAS)
    return f"Given the tables {schema}, write a SQL query that {rng.choice(tasks)}."


def _data_structure(rng):
    structure, operations = rng.choice(DATA_STRUCTURES)
    return f"Implement {structure} in {rng.choice(GENERAL_LANGUAGES)}, supporting {operations}."


CODING = {
    "templates": [
        ("Write a {language} function that {function_task}.", "code,style,complexity"),
        ("In {language}, how would you write code that {function_task}? Include a short usage example.", "code,style"),
        ("Write unit tests in {language} for a function that {function_task}. Cover the edge cases.", "code"),
        ("{data_structure}", "code,style"),
        ("{concept_pair}", "length,example"),
        ("{explain_code}", "length"),
        ("{fix_bug}", "length"),
        ("{translate_code}", "style"),
        ("{sql_query}", "sql"),
        ("Write a regular expression that matches {regex_target}, and explain each part of it.", "length"),
        ("Write a Bash script that {shell_task}.", "code,style"),
        ("What are the time and space complexity of {algorithm}? Explain why.", "length,format"),
        ("{howto}", "length,style"),
        ("Explain what {programming_concept} means in programming and show a small example in {language}.", "length,audience"),
        ("Write a single HTML page with plain JavaScript that {web_task}.", "code,style"),
        ("Implement {algorithm} in {language} and explain when you would choose it over the alternatives.", "code,style"),
        ("I'm getting started with {language}. Write a small, well-structured program that {function_task}, and explain how it is organised.", "style"),
    ],
    "constraints": {
        "code": [
            "Add comments explaining the key steps.", "Handle invalid input gracefully.", "Do not use any external libraries.",
            "Keep the solution under 40 lines.", "Include a few example calls and their expected output.",
        ],
        "style": ["Follow the language's usual naming conventions.", "Prefer readability over cleverness.", "Explain your design choices briefly."],
        "complexity": ["Aim for O(n log n) time or better.", "State the time complexity of your solution.", "Avoid recursion."],
        "sql": ["Use a common table expression.", "Explain how the query works.", "Assume PostgreSQL."],
        "length": ["Keep the answer under {n_short} words.", "Be concise."],
        "example": ["Include a short code example.", "Mention a common mistake people make."],
        "format": ["Use a small table to compare the cases.", "Cover the best, average and worst cases."],
        "audience": ["Assume I only know the basics of programming.", "Write for an experienced developer."],
    },
    "slots": {
        "language": GENERAL_LANGUAGES,
        "function_task": FUNCTION_TASKS,
        "data_structure": [_data_structure],
        "concept_pair": [_concept_pair],
        "explain_code": [_explain_code],
        "fix_bug": [_fix_bug],
        "translate_code": [_translate_code],
        "sql_query": [_sql],
        "regex_target": REGEX_TARGETS,
        "shell_task": SHELL_TASKS,
        "algorithm": ALGORITHMS,
        "howto": [_howto],
        "programming_concept": CONCEPTS,
        "web_task": WEB_TASKS,
    },
}
