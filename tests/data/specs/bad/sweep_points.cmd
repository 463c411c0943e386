sweep base.yaml --command check --db "$tmp/db" --axis 'a=1:100000:+1' --axis 'b=1:100000:+1' --axis 'c=1:1000:+1'
