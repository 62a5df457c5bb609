// BlogImport: see README.md
