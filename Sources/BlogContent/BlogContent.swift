// BlogContent: see README.md
