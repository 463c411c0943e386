batch batch_top.yaml --db "$tmp/db"
