sweep base.yaml --command check --db "$tmp/db" --axis 'k:problem.instance.K=64:1:+2'
