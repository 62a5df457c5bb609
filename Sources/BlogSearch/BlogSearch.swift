// BlogSearch: see README.md
