// SPDX-License-Identifier: MIT
/*
 * html: the page every HTML output is (html.h).  Its style and script are
 * ours, inline: no library, nothing from the network.  The flame graph is
 * an icicle, the whole run at the top and what ran inside each frame under
 * it, each frame as wide as its share of the value chosen (cost,
 * evaluations or observed); a click on a frame zooms to it, on the top row
 * back out; hovering shows its figures.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/html.h"
#include "util/json_out.h"
#include "util/num.h"

#ifndef EXTPROF_VERSION
#define EXTPROF_VERSION "unknown"
#endif

static const char html_style[] =
	"body{font:14px/1.4 -apple-system,'DejaVu Sans',Arial,sans-serif;margin:16px 24px;"
	"color:#1a1a1a;background:#fff}\n"
	"h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:20px 0 6px}\n"
	"pre.head{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}\n"
	"table.sortable{border-collapse:collapse;font-size:13px}\n"
	"table.sortable th{cursor:pointer;background:#eee;padding:3px 8px;text-align:right;"
	"white-space:nowrap;user-select:none}\n"
	"table.sortable th.l,table.sortable td.l{text-align:left}\n"
	"table.sortable th[aria-sort=descending]::after{content:' \\25BC'}\n"
	"table.sortable th[aria-sort=ascending]::after{content:' \\25B2'}\n"
	"table.sortable td{padding:2px 8px;text-align:right;border-bottom:1px solid #eee;"
	"white-space:nowrap}\n"
	"table.sortable tr:hover td{background:#fafad2}\n"
	"div.flame .frames{position:relative;border:1px solid #ddd;overflow:hidden}\n"
	"div.flame .frame{position:absolute;height:17px;box-sizing:border-box;"
	"border:1px solid #fff;font-size:11px;line-height:15px;padding:0 3px;overflow:hidden;"
	"white-space:nowrap;text-overflow:ellipsis;cursor:pointer}\n"
	"div.flame .frame:hover{border-color:#333}\n"
	"div.flame .caller{background:#c9d6e8}div.flame .rest{background:#e4e4e4}"
	"div.flame .root{background:#d0d0d0}\n"
	"div.flame .info{font-size:12px;color:#333;min-height:1.4em;margin:4px 0}\n"
	"svg{max-width:100%;height:auto}\n";

/*
 * The script: sortable tables (a "#sort=COLUMN" in the address sorts by
 * that column as the page opens) and flame graphs.  A flame graph's JSON is
 * {"nodes": [[name, parent, kind, [total...], [self...]], ...]}, node 0
 * the whole run, a node after its parent; kind 1 a declaration, 0 a
 * caller, 2 what no hooked function took.
 */
static const char html_script[] =
	"(function(){'use strict';\n"
	"function each(list,f){Array.prototype.forEach.call(list,f);}\n"
	"function fmt(v){return "
	"Math.round(v).toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g,',');}\n"
	"each(document.querySelectorAll('table.sortable'),function(table){\n"
	" var heads=table.tHead.rows[0].cells;\n"
	" each(heads,function(th,col){th.addEventListener('click',function(){\n"
	"  var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
	"  var down=th.getAttribute('aria-sort')!=='descending';\n"
	"  each(heads,function(h){h.removeAttribute('aria-sort');});\n"
	"  th.setAttribute('aria-sort',down?'descending':'ascending');\n"
	"  rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col],c;\n"
	"   if(x.hasAttribute('data-v')&&y.hasAttribute('data-v'))\n"
	"    c=Number(x.getAttribute('data-v'))-Number(y.getAttribute('data-v'));\n"
	"   else c=x.textContent.localeCompare(y.textContent);\n"
	"   return down?-c:c;});\n"
	"  rows.forEach(function(r){body.appendChild(r);});\n"
	" });});\n"
	" var m=/sort=([^&]+)/.exec(location.hash);\n"
	" if(m)each(heads,function(th){if(th.textContent==decodeURIComponent(m[1]))th.click();});\n"
	"});\n"
	"function hue(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))%360;"
	"return h;}\n"
	"each(document.querySelectorAll('div.flame'),function(box){\n"
	" var nodes=JSON.parse(document.getElementById(box.getAttribute('data-stacks'))"
	".textContent).nodes;\n"
	" var unit=box.getAttribute('data-unit')||'';\n"
	" var kids=nodes.map(function(){return [];});\n"
	" for(var i=1;i<nodes.length;i++)kids[nodes[i][1]].push(i);\n"
	" var select=box.querySelector('select'),area=box.querySelector('.frames'),"
	"info=box.querySelector('.info'),value=0,focus=0,ROW=18;\n"
	" function says(n){var v=nodes[n][3][value],all=nodes[0][3][value];\n"
	"  var s=(n?nodes[n][0]:'the run')+': '+fmt(v)+(value==1?' evaluations':' '+unit);\n"
	"  if(all>0)s+=' ('+(100*v/all).toFixed(2)+'% of the run)';\n"
	"  if(n&&kids[n].length)s+=', self '+fmt(nodes[n][4][value]);\n"
	"  return s;}\n"
	" function frame(n,depth,x,w){var d=document.createElement('div');\n"
	"  var k=nodes[n][2];\n"
	"  d.className='frame '+(n==0?'root':k==1?'decl':k==2?'rest':'caller');\n"
	"  if(n&&k==1)d.style.background='hsl('+hue(nodes[n][0])+',70%,72%)';\n"
	"  d.style.left=(100*x)+'%';d.style.width=(100*w)+'%';d.style.top=(depth*ROW)+'px';\n"
	"  d.textContent=n?nodes[n][0]:'all: the run';d.title=says(n);\n"
	"  d.setAttribute('data-name',nodes[n][0]);\n"
	"  d.addEventListener('click',function(){focus=n==focus?0:n;draw();});\n"
	"  d.addEventListener('mouseover',function(){info.textContent=says(n);});\n"
	"  area.appendChild(d);}\n"
	" function draw(){area.textContent='';\n"
	"  var whole=nodes[focus][3][value],depth=0,deepest=0,path=[];\n"
	"  for(var n=focus;n;n=nodes[n][1])path.unshift(n);\n"
	"  frame(0,depth++,0,1);\n"
	"  path.forEach(function(p){if(p!=focus)frame(p,depth++,0,1);});\n"
	"  function walk(n,d,x){var w=whole>0?nodes[n][3][value]/whole:0;\n"
	"   if(w<0.0005)return;frame(n,d,x,w);if(d>deepest)deepest=d;\n"
	"   var at=x;kids[n].forEach(function(c){walk(c,d+1,at);"
	"at+=whole>0?nodes[c][3][value]/whole:0;});}\n"
	"  if(focus)walk(focus,depth,0);\n"
	"  else{var at=0;kids[0].forEach(function(c){walk(c,depth,at);"
	"at+=whole>0?nodes[c][3][value]/whole:0;});}\n"
	"  area.style.height=((Math.max(deepest,depth)+1)*ROW)+'px';\n"
	"  info.textContent=whole>0?says(focus):'nothing to draw for this value';}\n"
	" if(select)select.addEventListener('change',function(){value=Number(select.value);"
	"draw();});\n"
	" draw();\n"
	"});\n"
	"})();\n";

void xp_html_text(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c == '\'')
			fputs("&#39;", out);
		else if ((c < 0x20 && c != '\n') || c == 0x7f)
			fputc('?', out);
		else
			fputc(c, out);
	}
}

char *xp_html_capture(int (*print)(const void *what, FILE *out), const void *what, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = print(what, f);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

void xp_html_begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"extprof " EXTPROF_VERSION "\">\n<title>",
	      out);
	xp_html_text(out, title, strlen(title));
	fprintf(out, "</title>\n<style>\n%s</style>\n</head><body>\n<h1>", html_style);
	xp_html_text(out, title, strlen(title));
	fputs("</h1>\n", out);
}

void xp_html_end(FILE *out)
{
	fprintf(out, "<script>\n%s</script>\n</body></html>\n", html_script);
}

void xp_html_cell_u64(FILE *out, uint64_t v)
{
	char a[XP_U64_BUF];

	fprintf(out, "<td data-v=\"%" PRIu64 "\">%s</td>", v, xp_fmt_u64(a, v));
}

void xp_html_cell_num(FILE *out, double v, const char *text)
{
	fprintf(out, "<td data-v=\"%.9g\">", v);
	xp_html_text(out, text, strlen(text));
	fputs("</td>", out);
}

void xp_html_cell(FILE *out, const char *s)
{
	fputs("<td class=\"l\">", out);
	xp_html_text(out, s, strlen(s));
	fputs("</td>", out);
}

int xp_html_json(FILE *out, const char *id, int (*write)(FILE *json, const void *arg),
		 const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *json = open_memstream(&buf, &len);
	int err;

	if (!json)
		return -ENOMEM;
	err = write(json, arg);
	if (fclose(json) && !err)
		err = -ENOMEM;
	if (!err) {
		fprintf(out, "<script type=\"application/json\" id=\"%s\">", id);
		for (size_t i = 0; i < len; i++) {
			if (buf[i] == '<')
				fputs("\\u003c", out);
			else if (buf[i] == '>')
				fputs("\\u003e", out);
			else if (buf[i] == '&')
				fputs("\\u0026", out);
			else
				fputc(buf[i], out);
		}
		fputs("</script>\n", out);
	}
	free(buf);
	return err;
}

/* A node of the page is kept when it is a declaration at the top, or not too thin to see. */
static bool html_keep(const struct xp_stacks *s, size_t i)
{
	const struct xp_stack_node *x = &s->v[i];

	if (x->row >= 0 && x->parent == 0)
		return true;
	for (int k = 0; k < XP_STACK_VALUES; k++)
		if (x->total[k] && x->total[k] >= s->v[0].total[k] / 100000)
			return true;
	return false;
}

static void html_node(FILE *json, const struct xp_stack_node *x, size_t parent, bool first)
{
	char *name;

	if (!first)
		fputs(",\n", json);
	if (asprintf(&name, "%.*s%s%.*s", (int)x->fn_len, x->fn, x->obj_len ? "@" : "",
		     (int)x->obj_len, x->obj) < 0)
		name = NULL;
	fputc('[', json);
	xp_json_put_string(json, name ? name : "?");
	free(name);
	fprintf(json, ",%zu,%d,[", parent,
		x->row >= 0 ? 1
		: parent == 0 && !x->obj_len && x->fn_len == strlen(XP_STACK_NOT_HOOKED) &&
				!memcmp(x->fn, XP_STACK_NOT_HOOKED, x->fn_len)
			? 2
			: 0);
	for (int k = 0; k < XP_STACK_VALUES; k++)
		fprintf(json, "%s%" PRIu64, k ? "," : "", x->total[k]);
	fputs("],[", json);
	for (int k = 0; k < XP_STACK_VALUES; k++)
		fprintf(json, "%s%" PRIu64, k ? "," : "", x->self[k]);
	fputs("]]", json);
}

int xp_html_stacks_json(FILE *json, const void *stacks)
{
	const struct xp_stacks *s = stacks;
	size_t *at = calloc(s->n + 1, sizeof(*at)), n = 1;
	bool *kept = calloc(s->n + 1, sizeof(*kept));

	if (!at || !kept) {
		free(at);
		free(kept);
		return -ENOMEM;
	}
	fputs("{\"values\":[\"cost\",\"evaluations\",\"observed\"],\"nodes\":[\n", json);
	html_node(json, &s->v[0], 0, true);
	kept[0] = true;
	for (size_t i = 1; i < s->n; i++) {
		if (!kept[s->v[i].parent] || !html_keep(s, i))
			continue;
		kept[i] = true;
		at[i] = n++;
		html_node(json, &s->v[i], at[s->v[i].parent], false);
	}
	fputs("]}\n", json);
	free(at);
	free(kept);
	return 0;
}

void xp_html_flame(FILE *out, const char *id, const char *title, const char *unit)
{
	fputs("<h2>", out);
	xp_html_text(out, title, strlen(title));
	fprintf(out, "</h2>\n<div class=\"flame\" data-stacks=\"%s\" data-unit=\"", id);
	xp_html_text(out, unit, strlen(unit));
	fputs("\">\n<label>width: <select><option value=\"0\">cost</option>"
	      "<option value=\"1\">evaluations</option><option value=\"2\">observed</option>"
	      "</select></label> (click a frame to zoom in, the top row to zoom out)\n"
	      "<div class=\"info\"></div><div class=\"frames\"></div>\n"
	      "<noscript>The flame graph needs JavaScript.</noscript></div>\n",
	      out);
}
