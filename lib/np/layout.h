/* netperf 2.7's output layouts: which table, single-figure form and -v 2
 * blocks a test prints (module.c's layouts name them; report.c prints them). */
#ifndef NP_LAYOUT_H
#define NP_LAYOUT_H

/*
 * Which of netperf 2.7's layouts a test prints (report.c), with 2.7's
 * quirks, which differ from test to test and which scripts parse.
 */
enum module_table {
	MODULE_TABLE_STREAM,	 /* TCP_STREAM's, or TCP_MAERTS's */
	MODULE_TABLE_DATAGRAMS, /* UDP_STREAM's, a line per side */
	MODULE_TABLE_RR,	 /* the request/response table */
	MODULE_TABLE_MSS,	 /* TCP_MSS's one figure, at every -v */
};
enum module_single {
	MODULE_SINGLE_BRANDED, /* "%7.2f %s" / "%6.3f %c %s" */
	MODULE_SINGLE_BARE,    /* "%7.2f" / "%6.3f": no letter, no brand */
	MODULE_SINGLE_LOCAL,   /* "%7.2f" / "%6.2f %c": local's letter */
};
enum module_verbose {
	MODULE_V2_BLOCKS,    /* alignments, offsets, calls, histogram */
	MODULE_V2_HISTOGRAM, /* the histogram alone */
	MODULE_V2_ALIGNMENT, /* the alignments, then the histogram */
};
struct module_layout {
	enum module_table table;
	enum module_single single;
	enum module_verbose verbose;
	/* The banner says " : first burst N". */
	int burst_banner;
	/* The -c -C title carries the S/U method letters. */
	int title_methods;
	/* Spaces before the CPU columns of the -c -C line. */
	const char *cpu_gap;
	/* -v 2's histogram title. */
	const char *hist_title;
	/* 2.7 runs the test with its classic code (nettest_bsd.c), never
	 * migrated to omni: the banner has no "MIGRATED", -v 2's bytes
	 * transferred are "%6.4g", and its alignment line prints the remote
	 * offset where the remote alignment belongs. */
	int classic;
};

#endif
