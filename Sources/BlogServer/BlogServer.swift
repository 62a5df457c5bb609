// BlogServer: see README.md
