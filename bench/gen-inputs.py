#!/usr/bin/env python3
"""bench/gen-inputs.py - the benchmark workloads' inputs, made here.

usage: gen-inputs.py DIR SCALE [NAME ...]
  writes DIR/data.json (records for jq), DIR/script.sql (a session for
  sqlite3), DIR/data.xml (a catalogue for xmllint) and DIR/text.txt (prose
  for gawk), each SCALE times the full size (1.0: 110 000 records, ~26 MB
  of JSON; 160 000 people in SQL; 150 000 books, ~58 MB of XML; 400 000
  lines, ~32 MB of text).  With NAMEs (json sql xml text), only those.  The same bytes on every machine: a
  fixed 64-bit linear congruential generator drives everything, nothing
  comes from the network or the OS.
"""
import os
import sys


class Lcg:
    """Knuth's MMIX constants; the top 31 bits are the output."""

    def __init__(self, seed):
        self.state = seed

    def below(self, n):
        self.state = (self.state * 6364136223846793005
                      + 1442695040888963407) % (1 << 64)
        return (self.state >> 33) % n


PARTS = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "an", "be",
         "co", "du", "el", "fa", "gi", "ho", "ix", "ju", "ly", "or", "pu"]


def word(r, parts):
    return "".join(PARTS[r.below(len(PARTS))] for _ in range(parts))


def skewed(r, words):
    """A word, early ones far more often: real text repeats itself, and
    repeated keys are what make allocators reuse blocks."""
    return words[r.below(r.below(len(words)) + 1)]


def json_records(path, n):
    r = Lcg(1)
    words = [word(r, 2 + r.below(4)) for _ in range(5000)]
    with open(path, "w") as f:
        f.write("[\n")
        for i in range(n):
            tags = ",".join('"%s"' % skewed(r, words)
                            for _ in range(r.below(6)))
            nums = ",".join(str(r.below(100000))
                            for _ in range(1 + r.below(5)))
            text = " ".join(skewed(r, words) for _ in range(4 + r.below(12)))
            f.write('{"id":%d,"name":"%s %s","score":%d,"active":%s,'
                    '"tags":[%s],"nested":{"a":"%s","b":[%s]},"text":"%s"}%s\n'
                    % (i, word(r, 3), word(r, 4), r.below(1000),
                       "true" if r.below(2) else "false", tags,
                       skewed(r, words), nums, text,
                       "," if i + 1 < n else ""))
        f.write("]\n")


def sql_session(path, n):
    r = Lcg(4)
    words = [word(r, 2 + r.below(4)) for _ in range(3000)]
    with open(path, "w") as f:
        f.write("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n"
                "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, "
                "city TEXT, age INT, note TEXT);\n"
                "CREATE TABLE orders(id INTEGER PRIMARY KEY, pid INT, "
                "item TEXT, qty INT, price REAL);\nBEGIN;\n")
        for i in range(n):
            f.write("INSERT INTO person VALUES(%d,'%s %s','%s',%d,'%s');\n"
                    % (i, word(r, 3), word(r, 4), skewed(r, words),
                       18 + r.below(70),
                       " ".join(skewed(r, words)
                                for _ in range(2 + r.below(6)))))
            for _ in range(r.below(3)):
                f.write("INSERT INTO orders(pid,item,qty,price) "
                        "VALUES(%d,'%s',%d,%d.%02d);\n"
                        % (i, skewed(r, words), 1 + r.below(9),
                           r.below(500), r.below(100)))
        f.write("COMMIT;\n"
                "CREATE INDEX person_city ON person(city);\n"
                "CREATE INDEX orders_pid ON orders(pid);\n"
                "SELECT city, count(*), avg(age) FROM person GROUP BY city "
                "ORDER BY 2 DESC LIMIT 5;\n"
                "SELECT p.city, sum(o.qty*o.price) AS t FROM person p "
                "JOIN orders o ON o.pid=p.id GROUP BY p.city "
                "ORDER BY t DESC LIMIT 5;\n"
                "SELECT count(*) FROM (SELECT name || ':' || upper(note) AS s "
                "FROM person ORDER BY s);\n"
                "UPDATE person SET note = note || ' ' || city "
                "WHERE age % 3 = 0;\n"
                "DELETE FROM orders WHERE qty < 3;\n"
                "SELECT count(*), sum(length(note)) FROM person;\n")


def xml_catalogue(path, n):
    """Books with attributes, nested elements, text and entities: what
    makes libxml2 allocate (a node, its name, its attributes, its text)."""
    r = Lcg(7)
    words = [word(r, 2 + r.below(4)) for _ in range(4000)]
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<catalogue>\n')
        for i in range(n):
            f.write('<book id="b%d" lang="%s" year="%d">'
                    '<title>%s %s</title><authors>%s</authors>'
                    '<price currency="EUR">%d.%02d</price>'
                    '<keywords>%s</keywords><summary>%s &amp; %s</summary>'
                    '</book>\n'
                    % (i, PARTS[r.below(len(PARTS))], 1900 + r.below(125),
                       word(r, 3), skewed(r, words),
                       "".join('<author role="%s">%s %s</author>'
                               % ("ed" if r.below(4) == 0 else "au",
                                  word(r, 2), word(r, 3))
                               for _ in range(1 + r.below(3))),
                       r.below(200), r.below(100),
                       "".join("<k>%s</k>" % skewed(r, words)
                               for _ in range(r.below(5))),
                       " ".join(skewed(r, words)
                                for _ in range(5 + r.below(15))),
                       skewed(r, words)))
        f.write("</catalogue>\n")


def text_lines(path, n):
    """Lines of words of skewed frequency, a few fields of numbers."""
    r = Lcg(11)
    words = [word(r, 1 + r.below(4)) for _ in range(30000)]
    with open(path, "w") as f:
        for i in range(n):
            f.write("%d %s %d\n" % (i, " ".join(skewed(r, words)
                                              for _ in range(3 + r.below(20))),
                                   r.below(10000)))


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out, scale = argv[1], float(argv[2])
    which = set(argv[3:]) or {"json", "sql", "xml", "text"}
    os.makedirs(out, exist_ok=True)
    if "json" in which:
        json_records(os.path.join(out, "data.json"), int(110000 * scale))
    if "sql" in which:
        sql_session(os.path.join(out, "script.sql"), int(160000 * scale))
    if "xml" in which:
        xml_catalogue(os.path.join(out, "data.xml"), int(150000 * scale))
    if "text" in which:
        text_lines(os.path.join(out, "text.txt"), int(400000 * scale))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
