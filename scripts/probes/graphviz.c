/* Graphviz's probe: libgvc lays out a two-node graph with dot and renders it to SVG in memory,
   as viz/Render does. */
#include <graphviz/gvc.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  GVC_t *gvc = gvContext();
  Agraph_t *g = agmemread("digraph { a -> b }");
  char *svg = NULL;
  unsigned int length = 0;
  if (!gvc || !g || gvLayout(gvc, g, "dot") != 0 || gvRenderData(gvc, g, "svg", &svg, &length))
    return 1;
  int ok = svg && strstr(svg, "<svg") != NULL;
  gvFreeRenderData(svg);
  gvFreeLayout(gvc, g);
  agclose(g);
  gvFreeContext(gvc);
  if (!ok)
    return 1;
  puts("ok");
  return 0;
}
