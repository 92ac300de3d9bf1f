"""What several kits share, each with its own parameter section, builders and checks.

A component names no kit and no game: a kit embeds its parameter section under a key of
its own choosing and calls its builders and measures from its parts and checks. No kit
imports another kit; what two kits need lives here once.
"""
