check base.yaml --set 'architecture.subtree[0].local[name=GLB].atributes.depth=64'
