"""Reporters turn Diagnostics and Budgets into text for people and machines. They never read
files or compute memory: everything they print comes from the records they are given."""
