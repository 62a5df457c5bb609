// BlogSite: see README.md
