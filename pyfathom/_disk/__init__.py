"""Tables on disk: the default tables folder and verified file copies."""
