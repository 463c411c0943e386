check base.yaml --set 'architecture.subtree[0].local[name=GBL].attributes.depth=64'
