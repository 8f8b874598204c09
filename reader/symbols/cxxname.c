/* cxxname.c - short C++ names: a demangled signature reduced to the
   qualified name a person reads, its template arguments elided. */
#include "symbols/cxxname.h"

#include <string.h>

/* OUT as it is filled: never past SIZE - 1 characters. */
struct out
{
  char *buf;
  size_t size, n;
};

static void
put (struct out *o, char c)
{
  if (o->n + 1 < o->size)
    o->buf[o->n++] = c;
}

static void
put_n (struct out *o, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    put (o, s[i]);
}

static void
put_s (struct out *o, const char *s)
{
  put_n (o, s, strlen (s));
}

/* Characters of identifiers; '.' too, for C names such as
   _GLOBAL__sub_I_eh_alloc.cc, and bytes of UTF-8. */
static int
is_ident (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
         || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.'
         || (unsigned char) c >= 0x80;
}

/* Whether [P, E) starts with WORD. */
static int
starts (const char *p, const char *e, const char *word)
{
  size_t len = strlen (word);
  return (size_t) (e - p) >= len && memcmp (p, word, len) == 0;
}

/* Whether the keyword "operator" starts at P (IN is the whole string:
   the character before P must not belong to an identifier). */
static int
is_operator (const char *in, const char *p, const char *e)
{
  return starts (p, e, "operator") && (p == in || !is_ident (p[-1]))
         && (p + 8 == e || !is_ident (p[8]));
}

/* The operators' symbols, longest first where one is a prefix of
   another. */
static const char *const op_symbols[] = {
  "new[]", "delete[]", "new", "delete", "co_await", "()", "[]", "->*",
  "->", "<<=", ">>=", "<=>", "<<", ">>", "<=", ">=", "==", "!=", "&&",
  "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<",
  ">", "+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", ",",
  "\"\"", NULL
};

/* P is just past "operator": the end of its symbol (after the spaces
   before it), or P itself for a conversion operator (no symbol). */
static const char *
op_symbol_end (const char *p, const char *e)
{
  const char *q = p;
  while (q < e && *q == ' ')
    q++;
  for (int i = 0; op_symbols[i]; i++)
    if (starts (q, e, op_symbols[i]))
      {
        size_t len = strlen (op_symbols[i]);
        /* "new", "delete", "co_await" are words: not "newline". */
        if (is_ident (q[0]) && q + len < e && is_ident (q[len]))
          continue;
        q += len;
        if (strcmp (op_symbols[i], "\"\"") == 0)
          {
            /* A literal operator: operator"" _km. */
            while (q < e && *q == ' ')
              q++;
            while (q < e && is_ident (*q))
              q++;
          }
        return q;
      }
  return p;
}

static int
is_open (char c)
{
  return c == '<' || c == '(' || c == '[' || c == '{';
}

static int
is_close (char c)
{
  return c == '>' || c == ')' || c == ']' || c == '}';
}

/* P is at an opening bracket: just past its matching close, or E if
   there is none.  All four kinds nest together; operator symbols and
   "->" inside are not brackets. */
static const char *
skip_group (const char *in, const char *p, const char *e)
{
  size_t depth = 0;
  while (p < e)
    {
      if (is_operator (in, p, e))
        {
          p = op_symbol_end (p + 8, e);
          continue;
        }
      if (p[0] == '-' && p + 1 < e && p[1] == '>')
        {
          p += 2;
          continue;
        }
      if (is_open (*p))
        depth++;
      else if (is_close (*p) && depth > 0 && --depth == 0)
        return p + 1;
      p++;
    }
  return e;
}

#define ANON "(anonymous namespace)"

/* P is just past "operator": the end of the operator's name, its
   conversion type included (up to its parameter list). */
static const char *
operator_end (const char *in, const char *p, const char *e)
{
  const char *q = op_symbol_end (p, e);
  if (q != p)
    return q;
  while (q < e && *q != '(')
    q = is_open (*q) ? skip_group (in, q, e) : q + 1;
  return q;
}

/* Past the qualifiers that may follow a parameter list: spaces, cv and
   ref qualifiers, noexcept, throw(), [abi:...] and [clone ...]. */
static const char *
skip_qualifiers (const char *in, const char *p, const char *e)
{
  static const char *const words[] = {
    "const", "volatile", "restrict", "noexcept", "transaction_safe",
    "throw", NULL
  };
  for (;;)
    {
      const char *q = p;
      while (q < e && *q == ' ')
        q++;
      if (q < e && (*q == '&' || *q == '['))
        {
          p = *q == '&' ? q + 1 : skip_group (in, q, e);
          continue;
        }
      int word = -1;
      for (int i = 0; words[i] && word < 0; i++)
        if (starts (q, e, words[i])
            && (q + strlen (words[i]) == e || !is_ident (q[strlen (words[i])])))
          word = i;
      if (word < 0)
        return q;
      p = q + strlen (words[word]);
      if (p < e && *p == '(')        /* throw(), noexcept(true) */
        p = skip_group (in, p, e);
    }
}

/* The span *NB, *NE of the function's qualified name in [B, E): past
   the return type, up to the parameter list.  DEPTH bounds the descent
   into function-pointer return types. */
static void
find_name (const char *in, const char *b, const char *e, int depth,
           const char **nb, const char **ne)
{
  const char *start = b, *p = b;
  while (p < e)
    {
      if (is_operator (in, p, e))
        {
          p = operator_end (in, p + 8, e);
          continue;
        }
      if (*p == ' ')
        {
          const char *q = p;
          while (q < e && *q == ' ')
            q++;
          /* "operator<< <T>": the template list still belongs to the
             name; any other space ends a return type. */
          if (q < e && *q != '<')
            start = q;
          p = q;
          continue;
        }
      if (*p == '(' && starts (p, e, ANON))
        {
          p += strlen (ANON);
          continue;
        }
      if (*p == '(')
        {
          const char *after = skip_group (in, p, e);
          if (p == start)
            {
              /* A group where a name would start: the return type's
                 "(*NAME(params))(params)" of a function returning a
                 function pointer, or part of a type (decltype (...)). */
              const char *q = p + 1;
              while (q < after && (*q == '*' || *q == '&' || *q == ' '))
                q++;
              if (q > p + 1 && after < e && *after == '(' && depth < 8
                  && after[-1] == ')')
                {
                  find_name (in, q, after - 1, depth + 1, nb, ne);
                  return;
                }
              p = after;
              continue;
            }
          /* The parameter list ends the name, unless "::" follows: the
             function holds a local entity (f(int)::Local::get). */
          const char *q = skip_qualifiers (in, after, e);
          if (q + 1 < e && q[0] == ':' && q[1] == ':')
            {
              p = q + 2;
              continue;
            }
          *nb = start;
          *ne = p;
          return;
        }
      p = is_open (*p) ? skip_group (in, p, e) : p + 1;
    }
  *nb = start;
  *ne = e;
}

/* Write a template list [P, Q) as "<...>", or "<>" when empty. */
static void
put_template (struct out *o, const char *p, const char *q)
{
  put_s (o, q == p + 2 && p[1] == '>' ? "<>" : "<...>");
}

/* Write the braces [P, Q) ({lambda(int)#1}, {unnamed type#1}) with
   their parameters as "(...)" and template lists as "<...>". */
static void
put_braces (struct out *o, const char *in, const char *p, const char *q)
{
  put (o, *p++);
  while (p < q)
    {
      if (*p == '(' || *p == '<')
        {
          const char *r = skip_group (in, p, q);
          if (*p == '<')
            put_template (o, p, r);
          else
            put_s (o, r == p + 2 && p[1] == ')' ? "()" : "(...)");
          p = r;
        }
      else
        put (o, *p++);
    }
}

/* Write the name [P, E) found by find_name, elided. */
static void
put_name (struct out *o, const char *in, const char *p, const char *e)
{
  while (p < e)
    {
      if (is_operator (in, p, e))
        {
          const char *sym = op_symbol_end (p + 8, e);
          if (sym != p + 8)
            {
              put_n (o, p, (size_t) (sym - p));
              p = sym;
              continue;
            }
          /* A conversion: its type, elided the same way. */
          const char *q = operator_end (in, p + 8, e);
          put_s (o, "operator");
          put_name (o, in, p + 8, q);
          p = q;
          continue;
        }
      if (*p == '(' && starts (p, e, ANON))
        {
          put_s (o, ANON);
          p += strlen (ANON);
          continue;
        }
      if (is_open (*p))
        {
          const char *q = skip_group (in, p, e);
          if (*p == '<')
            put_template (o, p, q);
          else if (*p == '{')
            put_braces (o, in, p, q);
          else if (*p == '(')         /* a local entity's function */
            q = skip_qualifiers (in, q, e);
          /* '[': [abi:cxx11] and [clone .isra.0] are left out. */
          p = q;
          continue;
        }
      put (o, *p++);
    }
}

/* What the demangler writes before special symbols' names. */
static const char *const prefixes[] = {
  "non-virtual thunk to ", "virtual thunk to ",
  "covariant return thunk to ", "construction vtable for ",
  "vtable for ", "typeinfo name for ", "typeinfo for ", "VTT for ",
  "guard variable for ", "TLS init function for ",
  "TLS wrapper function for ", "transaction clone for ", NULL
};

void
hi_cxx_short_name (const char *in, char *out, size_t size)
{
  if (size == 0)
    return;
  struct out o = { out, size, 0 };
  const char *e = in + strlen (in);
  /* C names and the tables' own placeholders (<deeper>) as they are. */
  if (in[0] == '<' || in[strcspn (in, "<([{ ")] == '\0')
    {
      put_n (&o, in, (size_t) (e - in));
      out[o.n] = '\0';
      return;
    }
  const char *b = in;
  for (int i = 0; prefixes[i]; i++)
    if (starts (b, e, prefixes[i]))
      {
        put_s (&o, prefixes[i]);
        b += strlen (prefixes[i]);
        break;
      }
  const char *nb, *ne;
  find_name (in, b, e, 0, &nb, &ne);
  while (ne > nb && ne[-1] == ' ')
    ne--;
  size_t before = o.n;
  put_name (&o, in, nb, ne);
  if (o.n == before)            /* nothing like a name: leave it be */
    put_n (&o, b, (size_t) (e - b));
  out[o.n] = '\0';
}
