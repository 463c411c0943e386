batch batch_set.yaml --db "$tmp/db"
