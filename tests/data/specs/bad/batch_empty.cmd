batch batch_empty.yaml --db "$tmp/db"
