"""Front end: preprocess, lex and parse P4-16 source into an AST; types, environment, constants."""
