batch batch_crash.yaml --db "$tmp/db"
