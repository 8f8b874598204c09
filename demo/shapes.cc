// shapes.cc - the client API's types: a scene of shapes, meshes and
// labels, built with typed new-expressions; `heapinspect -t types` shows
// what the memory is made of, by type, and which chain made it.
// Usage: shapes [COUNT]
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

struct Point { double x, y, z; };
struct Shape
{
  virtual ~Shape () {}
  virtual double area () const = 0;
};
struct Circle : Shape
{
  Point centre;
  double r;
  double area () const { return 3.14159 * r * r; }
};
struct Polygon : Shape
{
  Point *corners;
  int n;
  double area () const { return n; }
  ~Polygon () { delete[] corners; }
};

template <class T> struct Cache { T slots[16]; int used; };

#define HEAPINSPECT_TYPED_NEW 1
#include <heapinspect/typed.h>

static Shape *
make_polygon (int n)
{
  Polygon *p = new Polygon;
  p->corners = new Point[n];
  p->n = n;
  return p;
}

static Shape *
make_circle (double r)
{
  Circle *c = new Circle;
  c->r = r;
  return c;
}

int
main (int argc, char **argv)
{
  int count = argc > 1 ? std::atoi (argv[1]) : 1000;
  std::vector<Shape *> scene;
  for (int i = 0; i < count; i++)
    scene.push_back (i % 3 ? make_circle (i) : make_polygon (3 + i % 7));
  auto *labels = new std::pair<int, const char *>[count];
  Cache<Point> *points = new Cache<Point> ();
  Cache<Shape *> *shapes = new Cache<Shape *> ();
  double total = 0;
  for (Shape *s : scene)
    total += s->area ();
  // Circles go; polygons, the labels and the caches stay (leaked).
  for (Shape *&s : scene)
    if (dynamic_cast<Circle *> (s))
      {
        delete s;
        s = nullptr;
      }
  std::printf ("%d shapes, total area %.0f\n", count, total);
  (void) labels; (void) points; (void) shapes;
  return 0;
}
