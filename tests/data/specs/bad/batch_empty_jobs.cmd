batch batch_empty_jobs.yaml --db "$tmp/db"
