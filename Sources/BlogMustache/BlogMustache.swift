// BlogMustache: see README.md
