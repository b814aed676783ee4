"""Text analysis, one rule in one place (as Whoosh's `analysis/`): what a word is, how
Chinese and Japanese are split, how a query's text is normalised, the function words of
each language, what the index stores for a page (`index_text`), and the language guess.

Used at index time by the engines and the indexer, and at query time by the query parser
and search; it imports nothing of pdfindex but `errors`.

- `words`: the word and CJK rules (the engines' tokenizer patterns too), normalisation.
- `index`: line-end hyphenation, and the page text the index tokenises.
- `stopwords`: one function-word table per language.
- `language`: the language guess that labels a document.
"""
