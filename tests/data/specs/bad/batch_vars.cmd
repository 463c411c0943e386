batch batch_vars.yaml --db "$tmp/db"
