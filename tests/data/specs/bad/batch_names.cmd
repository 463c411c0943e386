batch batch_names.yaml --db "$tmp/db"
