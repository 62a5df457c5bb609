// BlogYAML: see README.md
