module rehearsal.local/shop

go 1.24
