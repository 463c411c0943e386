sweep base.yaml --command check --db "$tmp/db" --axis 'm:problem.instance.M=2,4' --axis 'm:problem.instance.N=2,4'
