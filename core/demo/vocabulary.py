"""The words of the demo data set: user names, prompts, edits, replies.

Post texts, prompt templates and community feedback in the style of the posts ECHO
collected after GPT-4o's image generation launch; every list is sampled with the
generator's seeded ``random.Random``, so the order of items is part of the demo's content.
"""

from __future__ import annotations

FIRST = ["pixel", "ghibli", "render", "prompt", "neon", "latent", "diffuse", "sora", "brush", "retro",
         "pastel", "vibe", "glitch", "noisy", "crisp", "lofi", "moody", "sunny", "inky", "dream"]
NAMES = ["pam", "gus", "rita", "pete", "nora", "leo", "dan", "sam", "kai", "mia", "theo", "ivy",
         "raj", "zoe", "max", "lena", "omar", "yuki", "bea", "finn"]
KEYWORDS = ["gpt-4o image", "4o image gen", "chatgpt image", "nano banana", "image generation", "sora image"]
NOUNS = {"cat": ["cat", "kitty", "cat Miso"], "portrait": ["dad", "girlfriend", "grandma", "selfie", "profile pic"],
         "house": ["house", "childhood home", "cabin"], "landscape": ["hiking photo", "vacation pic", "view"],
         "car": ["car", "first car", "old Beetle"], "can": ["soda can"]}
STYLES = {"Studio Ghibli style": "cartoon", "watercolor": "watercolour", "pencil sketch": "sketch",
          "pixel art": "pixel", "photorealistic": None, "as a 1970s polaroid": "polaroid"}
SIGNS = ["OPEN 24/7", "RAMEN", "LATE NIGHT TACOS", "KARAOKE", "NO VACANCY", "HOTEL ECHO"]
POSTERS = ["GONE FISHING", "VISIT MARS", "SUMMER JAZZ 2025", "GRAND OPENING", "SAVE THE BEES"]
BRANDS = ["NOVA COLA", "FIZZ POP", "LIME WAVE", "GOOD SODA"]
CAPTIONS = ["monday mood", "me after one coffee", "it's giving main character", "touch grass"]

# edit id -> (scene kinds, prompt templates, tags, feedback topic)
EDITS: dict[str, tuple[list[str], list[str], list[str], str]] = {
    "ghibli": (["cat", "portrait", "house", "landscape", "car"],
               ["Turn my {noun} into a Studio Ghibli character", "ghibli-fy this photo of my {noun} pls",
                "Make this look like a frame from a Studio Ghibli movie",
                "redraw my {noun} in the style of studio ghibli, soft colors"], ["ghibli", "style-transfer"], "style"),
    "polaroid": (["cat", "portrait", "house", "landscape", "car"],
                 ["make this photo look like a 1970s polaroid", "Make it look like an old instant photo from 1976"],
                 ["vintage"], "style"),
    "pixel": (["cat", "house", "car", "landscape"],
              ["Turn this into 16-bit pixel art", "make my {noun} a retro video game sprite"], ["pixel-art"], "style"),
    "sketch": (["cat", "portrait", "house", "car"],
               ["Redraw this as a pencil sketch", "turn this into a rough graphite drawing"], ["sketch"], "style"),
    "watercolour": (["landscape", "house", "cat"],
                    ["Paint this as a loose watercolor", "make it a watercolor painting on textured paper"],
                    ["style-transfer"], "style"),
    "recolour": (["car", "house", "cat"],
                 ["Change the colour of the {noun} to {colour}", "make the {noun} {colour}, keep everything else the same"],
                 ["edit", "colour"], "structure"),
    "night": (["house", "landscape"], ["Make it night time with the lights on", "same scene but at night"],
              ["edit", "lighting"], "structure"),
    "sunset": (["landscape", "house", "car"], ["change the sky to a sunset", "make it golden hour"],
               ["edit", "lighting"], "structure"),
    "snow": (["landscape", "house", "car"], ["make it winter, add snow everywhere", "Add snow to this picture"],
             ["edit", "weather"], "structure"),
    "hat": (["cat"], ["put a tiny wizard hat on my cat", "give my {noun} a wizard hat"], ["edit", "add-object"], "structure"),
    "glasses": (["portrait"], ["add round glasses to this portrait", "give my {noun} some glasses"],
                ["edit", "identity"], "identity"),
    "caption": (["cat", "portrait", "car"], ["Add a caption that says '{caption}'", "put '{caption}' on it in meme font"],
                ["text-rendering"], "text"),
    "relabel": (["can"], ["Change the label to say '{brand}' in the same font", "rebrand this can as '{brand}'"],
                ["text-rendering", "product"], "text"),
}
# (scene kind, template) for text-to-image prompts
T2I = [
    ("sign", "A neon sign that says '{sign}' in a rainy alley"),
    ("sign", "neon lettering '{sign}' glowing on a brick wall at night, cinematic"),
    ("poster", "Make a vintage travel poster with the words '{poster}'"),
    ("poster", "A minimalist poster that says '{poster}'"),
    ("receipt", "a realistic photo of a coffee shop receipt with a total of ${amount}"),
    ("can", "product shot of a soda can called '{brand}' on a grey background"),
    ("landscape", "A cozy valley with rolling hills and pine trees, {style}"),
    ("cat", "A {colour} cat sitting on a windowsill, {style}"),
    ("house", "A small cottage with a dark roof, {style}"),
    ("car", "A {colour} vintage car parked on an empty road, {style}"),
    ("portrait", "Portrait of a woman with curly hair, {style}"),
]
POST_TEXT = [
    'GPT-4o image gen is actually insane.\n\nPrompt: "{p}"', "{p} 🤯", "asked chatgpt: {p}\n\nresult 👇",
    'Prompt: "{p}"\n\n4o vs nano banana, which one wins?', 'ok the new image model is scary good. "{p}"',
    'Tried "{p}" and it nailed it first try', "day {n} of testing 4o image gen: {p}", "{p}\n\n(made with gpt-4o image)",
]
CONTEXT = ["Drop your best GPT-4o image prompts 👇", "Show me what 4o does with your pet photos",
           "the ghibli trend has completely taken over my timeline", "has anyone tested the new image model on text yet?",
           "nano banana or 4o for edits? go"]
CHATTER = ["what prompt did you use?", "🔥🔥🔥", "how long did it take to generate?", "is this on the free plan?",
           "bookmarked", "this trend is everywhere lol", "can you do mine?", "teach me your ways"]
FEEDBACK = {
    "yellow": ["the yellow tint is back 😩", "why does everything from 4o look like it was dipped in tea",
               "love it but the piss filter is real", "colors are way warmer than the original"],
    "identity": ["it changed her face completely", "doesn't look like him at all anymore", "the eyes are different, uncanny"],
    "structure": ["composition is preserved perfectly", "it moved the door lol", "kept every detail, only changed what I asked",
                  "it added a second chimney??"],
    "text": ["text rendering is finally perfect", "spelling is wrong on the second line", "letters are crisp, this is wild",
            "it dropped a letter, look closely", "the font changed completely"],
    "receipt": ["the total doesn't add up 😂", "the prices don't sum to the total lol", "numbers are actually correct?!"],
    "style": ["this is the best ghibli one I've seen", "looks more like generic anime than ghibli",
              "the pixel art isn't even on a grid", "honestly beautiful"],
}
TRASH = ["lol", "this is what it gave me 💀", "rate my ghibli pfp 1-10", "the ghibli trend needs to stop",
         "4o is so back"]
RAW = ["is 4o image gen down for anyone else?", "image gen rate limits are brutal today",
       "unpopular opinion: the ghibli filter is overrated", "waiting for nano banana 2 like", "new pfp who dis"]
TEMPLATES = [("Make me a poster that says ___", "poster", POSTERS), ("Design a soda can called ___", "can", BRANDS)]
