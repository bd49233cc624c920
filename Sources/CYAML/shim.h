// libyaml (Debian: libyaml-dev), the C YAML parser the core's YAML reader composes its nodes from.
#include <yaml.h>
