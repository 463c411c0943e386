sweep base.yaml --command check --db "$tmp/db" --axis 'problem.instance.M=2,,4' --axis 'problem.instance.N'
