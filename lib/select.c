#include "np/select.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np/err.h"
#include "np/figure.h"
#include "np/oneway.h"
#include "np/proto.h"
#include "np/underload.h"
#include "np/tstamp.h"
#include "np/transport.h"

/*
 * The selector table: netperf 2.7's omni names and the four title lines
 * -O stacks over a column (-o joins them with spaces; the titles are
 * 2.7's, typos in REMOTE_SECURITY_TYPE_ID's and _ENABLED_NUM's included).
 * The order is the order of "all+", netperf's four blocks with our
 * additions at the end of the block they belong to. Names marked "ours"
 * in doc/output.md are not in netperf.
 */
#define OUTPUT_SELECTORS(X)                                                    \
	X(SOCKET_TYPE, "Socket", "Type", "", "")                               \
	X(PROTOCOL, "Protocol", "", "", "")                                    \
	X(DIRECTION, "Direction", "", "", "")                                  \
	X(ELAPSED_TIME, "Elapsed", "Time", "(sec)", "")                        \
	X(THROUGHPUT, "Throughput", "", "", "")                                \
	X(THROUGHPUT_UNITS, "Throughput", "Units", "", "")                     \
	X(LSS_SIZE_REQ, "Local", "Send Socket", "Size", "Requested")           \
	X(LSS_SIZE, "Local", "Send Socket", "Size", "Initial")                 \
	X(LSS_SIZE_END, "Local", "Send Socket", "Size", "Final")               \
	X(LSR_SIZE_REQ, "Local", "Recv Socket", "Size", "Requested")           \
	X(LSR_SIZE, "Local", "Recv Socket", "Size", "Initial")                 \
	X(LSR_SIZE_END, "Local", "Recv Socket", "Size", "Final")               \
	X(RSS_SIZE_REQ, "Remote", "Send Socket", "Size", "Requested")          \
	X(RSS_SIZE, "Remote", "Send Socket", "Size", "Initial")                \
	X(RSS_SIZE_END, "Remote", "Send Socket", "Size", "Final")              \
	X(RSR_SIZE_REQ, "Remote", "Recv Socket", "Size", "Requested")          \
	X(RSR_SIZE, "Remote", "Recv Socket", "Size", "Initial")                \
	X(RSR_SIZE_END, "Remote", "Recv Socket", "Size", "Final")              \
	X(LOCAL_SEND_SIZE, "Local", "Send", "Size", "")                        \
	X(LOCAL_RECV_SIZE, "Local", "Recv", "Size", "")                        \
	X(REMOTE_SEND_SIZE, "Remote", "Send", "Size", "")                      \
	X(REMOTE_RECV_SIZE, "Remote", "Recv", "Size", "")                      \
	X(REQUEST_SIZE, "Request", "Size", "Bytes", "")                        \
	X(RESPONSE_SIZE, "Response", "Size", "Bytes", "")                      \
	X(LOCAL_CPU_UTIL, "Local", "CPU", "Util", "%")                         \
	X(LOCAL_CPU_PERCENT_USER, "Local", "CPU", "User", "%")                 \
	X(LOCAL_CPU_PERCENT_SYSTEM, "Local", "CPU", "System", "%")             \
	X(LOCAL_CPU_PERCENT_IOWAIT, "Local", "CPU", "I/O", "%")                \
	X(LOCAL_CPU_PERCENT_IRQ, "Local", "CPU", "IRQ", "%")                   \
	X(LOCAL_CPU_PERCENT_SWINTR, "Local", "CPU", "swintr", "%")             \
	X(LOCAL_CPU_PERCENT_STEAL, "Local", "CPU", "Steal", "%")               \
	X(LOCAL_CPU_METHOD, "Local", "CPU", "Util", "Method")                  \
	X(LOCAL_SD, "Local", "Service", "Demand", "")                          \
	X(REMOTE_CPU_UTIL, "Remote", "CPU", "Util", "%")                       \
	X(REMOTE_CPU_PERCENT_USER, "Remote", "CPU", "User", "%")               \
	X(REMOTE_CPU_PERCENT_SYSTEM, "Remote", "CPU", "System", "%")           \
	X(REMOTE_CPU_PERCENT_IOWAIT, "Remote", "CPU", "I/O", "%")              \
	X(REMOTE_CPU_PERCENT_IRQ, "Remote", "CPU", "IRQ", "%")                 \
	X(REMOTE_CPU_PERCENT_SWINTR, "Remote", "CPU", "swintr", "%")           \
	X(REMOTE_CPU_PERCENT_STEAL, "Remote", "CPU", "Steal", "%")             \
	X(REMOTE_CPU_METHOD, "Remote", "CPU", "Util", "Method")                \
	X(REMOTE_SD, "Remote", "Service", "Demand", "")                        \
	X(SD_UNITS, "Service", "Demand", "Units", "")                          \
	X(CONFIDENCE_LEVEL, "Confidence", "Level", "Percent", "")              \
	X(CONFIDENCE_INTERVAL, "Confidence", "Width", "Target", "")            \
	X(CONFIDENCE_ITERATION, "Confidence", "Iterations", "Run", "")         \
	X(THROUGHPUT_CONFID, "Throughput", "Confidence", "Width (%)", "")      \
	X(LOCAL_CPU_CONFID, "Local", "CPU", "Confidence", "Width (%)")         \
	X(REMOTE_CPU_CONFID, "Remote", "CPU", "Confidence", "Width (%)")       \
	X(TRANSACTION_RATE, "Transaction", "Rate", "Tran/s", "")               \
	X(RT_LATENCY, "Round", "Trip", "Latency", "usec/tran")                 \
	X(BURST_SIZE, "Initial", "Burst", "Requests", "")                      \
	X(LOCAL_TRANSPORT_RETRANS, "Local", "Transport", "Retransmissions",    \
	  "")                                                                  \
	X(REMOTE_TRANSPORT_RETRANS, "Remote", "Transport", "Retransmissions",  \
	  "")                                                                  \
	X(TRANSPORT_MSS, "Transport", "MSS", "bytes", "")                      \
	X(LOCAL_SEND_THROUGHPUT, "Local", "Send", "Throughput", "")            \
	X(LOCAL_RECV_THROUGHPUT, "Local", "Recv", "Throughput", "")            \
	X(REMOTE_SEND_THROUGHPUT, "Remote", "Send", "Throughput", "")          \
	X(REMOTE_RECV_THROUGHPUT, "Remote", "Recv", "Throughput", "")          \
	X(LOCAL_CPU_BIND, "Local", "CPU", "Bind", "")                          \
	X(LOCAL_CPU_COUNT, "Local", "CPU", "Count", "")                        \
	X(LOCAL_CPU_PEAK_UTIL, "Local", "Peak", "Per CPU", "Util %")           \
	X(LOCAL_CPU_PEAK_ID, "Local", "Peak", "Per CPU", "ID")                 \
	X(REMOTE_CPU_BIND, "Remote", "CPU", "Bind", "")                        \
	X(REMOTE_CPU_COUNT, "Remote", "CPU", "Count", "")                      \
	X(REMOTE_CPU_PEAK_UTIL, "Remote", "Peak", "Per CPU", "Util %")         \
	X(REMOTE_CPU_PEAK_ID, "Remote", "Peak", "Per CPU", "ID")               \
	X(SOURCE_ADDR, "Source", "Address", "", "")                            \
	X(SOURCE_FAMILY, "Source", "Family", "", "")                           \
	X(DEST_ADDR, "Destination", "Address", "", "")                         \
	X(DEST_FAMILY, "Destination", "Family", "", "")                        \
	X(LOCAL_SEND_CALLS, "Local", "Send", "Calls", "")                      \
	X(LOCAL_RECV_CALLS, "Local", "Recv", "Calls", "")                      \
	X(LOCAL_BYTES_PER_RECV, "Local", "Bytes", "Per", "Recv")               \
	X(LOCAL_BYTES_PER_SEND, "Local", "Bytes", "Per", "Send")               \
	X(LOCAL_BYTES_SENT, "Local", "Bytes", "Sent", "")                      \
	X(LOCAL_BYTES_RECVD, "Local", "Bytes", "Received", "")                 \
	X(LOCAL_BYTES_XFERD, "Local", "Bytes", "Xferred", "")                  \
	X(LOCAL_NODELAY, "Local", "NODELAY", "", "")                           \
	X(REMOTE_SEND_CALLS, "Remote", "Send", "Calls", "")                    \
	X(REMOTE_RECV_CALLS, "Remote", "Recv", "Calls", "")                    \
	X(REMOTE_BYTES_PER_RECV, "Remote", "Bytes", "Per", "Recv")             \
	X(REMOTE_BYTES_PER_SEND, "Remote", "Bytes", "Per", "Send")             \
	X(REMOTE_BYTES_SENT, "Remote", "Bytes", "Sent", "")                    \
	X(REMOTE_BYTES_RECVD, "Remote", "Bytes", "Received", "")               \
	X(REMOTE_BYTES_XFERD, "Remote", "Bytes", "Xferred", "")                \
	X(REMOTE_NODELAY, "Remote", "NODELAY", "", "")                         \
	X(OUTPUT_NONE, " ", "", "", "")                                        \
	X(SOURCE_PORT, "Source", "Port", "", "")                               \
	X(DEST_PORT, "Destination", "Port", "", "")                            \
	X(LOCAL_SEND_WIDTH, "Local", "Send", "Width", "")                      \
	X(LOCAL_RECV_WIDTH, "Local", "Recv", "Width", "")                      \
	X(LOCAL_SEND_OFFSET, "Local", "Send", "Offset", "")                    \
	X(LOCAL_RECV_OFFSET, "Local", "Recv", "Offset", "")                    \
	X(LOCAL_RECV_ALIGN, "Local", "Recv", "Alignment", "")                  \
	X(LOCAL_SEND_ALIGN, "Local", "Send", "Alignment", "")                  \
	X(LOCAL_SEND_DIRTY_COUNT, "Local", "Send", "Dirty", "Count")           \
	X(LOCAL_RECV_DIRTY_COUNT, "Local", "Recv", "Dirty", "Count")           \
	X(LOCAL_RECV_CLEAN_COUNT, "Local", "Recv", "Clean", "Count")           \
	X(LOCAL_CORK, "Local", "Cork", "", "")                                 \
	X(REMOTE_SEND_WIDTH, "Remote", "Send", "Width", "")                    \
	X(REMOTE_RECV_WIDTH, "Remote", "Recv", "Width", "")                    \
	X(REMOTE_SEND_OFFSET, "Remote", "Send", "Offset", "")                  \
	X(REMOTE_RECV_OFFSET, "Remote", "Recv", "Offset", "")                  \
	X(REMOTE_RECV_ALIGN, "Remote", "Recv", "Alignment", "")                \
	X(REMOTE_SEND_ALIGN, "Remote", "Send", "Alignment", "")                \
	X(REMOTE_SEND_DIRTY_COUNT, "Remote", "Send", "Dirty", "Count")         \
	X(REMOTE_RECV_DIRTY_COUNT, "Remote", "Recv", "Dirty", "Count")         \
	X(REMOTE_RECV_CLEAN_COUNT, "Remote", "Recv", "Clean", "Count")         \
	X(REMOTE_CORK, "Remote", "Cork", "", "")                               \
	X(LOCAL_INTERVAL_USECS, "Local", "Interval", "Usecs", "")              \
	X(LOCAL_INTERVAL_BURST, "Local", "Interval", "Burst", "")              \
	X(REMOTE_INTERVAL_USECS, "Remote", "Interval", "Usecs", "")            \
	X(REMOTE_INTERVAL_BURST, "Remote", "Interval", "Burst", "")            \
	X(LOCAL_SECURITY_TYPE_ID, "Local", "OS", "Security", "Type ID")        \
	X(LOCAL_SECURITY_TYPE, "Local", "OS", "Security", "Type")              \
	X(LOCAL_SECURITY_ENABLED_NUM, "Local", "OS", "Security",               \
	  "Enabled Num")                                                       \
	X(LOCAL_SECURITY_ENABLED, "Local", "OS", "Security", "Enabled")        \
	X(LOCAL_SECURITY_SPECIFIC, "Local", "OS", "Security", "Specific")      \
	X(REMOTE_SECURITY_TYPE_ID, "Remote", "OS", "Security", "Type")         \
	X(REMOTE_SECURITY_TYPE, "Remote", "OS", "Security", "Type")            \
	X(REMOTE_SECURITY_ENABLED_NUM, "Remote", "OS", "Security", "Enabled")  \
	X(REMOTE_SECURITY_ENABLED, "Remote", "OS", "Security", "Enabled")      \
	X(REMOTE_SECURITY_SPECIFIC, "Remote", "OS", "Security", "Specific")    \
	X(RESULT_BRAND, "Result", "Tag", "", "")                               \
	X(LOCAL_SOCKET_PRIO, "Local", "Socket", "Priority", "")                \
	X(REMOTE_SOCKET_PRIO, "Remote", "Socket", "Priority", "")              \
	X(LOCAL_SOCKET_TOS, "Local", "Socket", "TOS", "")                      \
	X(REMOTE_SOCKET_TOS, "Remote", "Socket", "TOS", "")                    \
	X(LOCAL_CONG_CONTROL, "Local", "Congestion", "Control", "Algorithm")   \
	X(REMOTE_CONG_CONTROL, "Remote", "Congestion", "Control", "Algorithm") \
	X(LOCAL_FILL_FILE, "Local", "Fill", "File", "")                        \
	X(REMOTE_FILL_FILE, "Remote", "Fill", "File", "")                      \
	X(LOCAL_SYSNAME, "Local", "Sysname", "", "")                           \
	X(LOCAL_RELEASE, "Local", "Release", "", "")                           \
	X(LOCAL_CPU_MODEL, "Local", "CPU", "Model", "")                        \
	X(LOCAL_HOSTNAME, "Local", "Hostname", "", "")                         \
	X(REMOTE_SYSNAME, "Remote", "Sysname", "", "")                         \
	X(REMOTE_RELEASE, "Remote", "Release", "", "")                         \
	X(REMOTE_CPU_MODEL, "Remote", "CPU", "Model", "")                      \
	X(REMOTE_HOSTNAME, "Remote", "Hostname", "", "")                       \
	X(LOCAL_CPU_FREQUENCY, "Local", "CPU", "Frequency", "MHz")             \
	X(LOCAL_VERSION, "Local", "Version", "", "")                           \
	X(LOCAL_MACHINE, "Local", "Machine", "", "")                           \
	X(LOCAL_SYSTEM_MODEL, "Local", "System", "Model", "")                  \
	X(LOCAL_INTERFACE_NAME, "Local", "Interface", "Name", "")              \
	X(LOCAL_INTERFACE_VENDOR, "Local", "Interface", "Vendor", "")          \
	X(LOCAL_INTERFACE_DEVICE, "Local", "Interface", "Device", "")          \
	X(LOCAL_INTERFACE_SUBVENDOR, "Local", "Interface", "Subvendor", "")    \
	X(LOCAL_INTERFACE_SUBDEVICE, "Local", "Interface", "Subdevice", "")    \
	X(LOCAL_DRIVER_NAME, "Local", "Driver", "Name", "")                    \
	X(LOCAL_DRIVER_VERSION, "Local", "Driver", "Version", "")              \
	X(LOCAL_DRIVER_FIRMWARE, "Local", "Driver", "Firmware", "")            \
	X(LOCAL_DRIVER_BUS, "Local", "Driver", "Bus", "")                      \
	X(LOCAL_INTERFACE_SLOT, "Local", "Interface", "Slot", "")              \
	X(LOCAL_CPU_MAX_FREQUENCY, "Local", "CPU", "Max Freq", "MHz")          \
	X(LOCAL_CPU_GOVERNOR, "Local", "CPU", "Governor", "")                  \
	X(LOCAL_SMT, "Local", "SMT", "", "")                                   \
	X(LOCAL_VULNERABLE, "Local", "Vulnerable", "To", "")                   \
	X(LOCAL_MITIGATION_OPTIONS, "Local", "Mitigation", "Options", "")      \
	X(LOCAL_HYPERVISOR, "Local", "Hypervisor", "", "")                     \
	X(LOCAL_CONTAINER, "Local", "Container", "", "")                       \
	X(LOCAL_NUMA_NODES, "Local", "NUMA", "Nodes", "")                      \
	X(LOCAL_SYSTEM_VENDOR, "Local", "System", "Vendor", "")                \
	X(LOCAL_INTERFACE_SPEED, "Local", "Interface", "Speed", "Mb/s")        \
	X(LOCAL_INTERFACE_MTU, "Local", "Interface", "MTU", "")                \
	X(LOCAL_INTERFACE_OFFLOADS, "Local", "Interface", "Offloads", "")      \
	X(LOCAL_INTERFACE_IRQ_CPUS, "Local", "Interface", "IRQ CPUs", "")      \
	X(LOCAL_QDISC, "Local", "Qdisc", "", "")                               \
	X(LOCAL_BUILD, "Local", "Build", "", "")                               \
	X(REMOTE_CPU_FREQUENCY, "Remote", "CPU", "Frequency", "MHz")           \
	X(REMOTE_VERSION, "Remote", "Version", "", "")                         \
	X(REMOTE_MACHINE, "Remote", "Machine", "", "")                         \
	X(REMOTE_SYSTEM_MODEL, "Remote", "System", "Model", "")                \
	X(REMOTE_INTERFACE_NAME, "Remote", "Interface", "Name", "")            \
	X(REMOTE_INTERFACE_VENDOR, "Remote", "Interface", "Vendor", "")        \
	X(REMOTE_INTERFACE_DEVICE, "Remote", "Interface", "Device", "")        \
	X(REMOTE_INTERFACE_SUBVENDOR, "Remote", "Interface", "Subvendor", "")  \
	X(REMOTE_INTERFACE_SUBDEVICE, "Remote", "Interface", "Subdevice", "")  \
	X(REMOTE_DRIVER_NAME, "Remote", "Driver", "Name", "")                  \
	X(REMOTE_DRIVER_VERSION, "Remote", "Driver", "Version", "")            \
	X(REMOTE_DRIVER_FIRMWARE, "Remote", "Driver", "Firmware", "")          \
	X(REMOTE_DRIVER_BUS, "Remote", "Driver", "Bus", "")                    \
	X(REMOTE_INTERFACE_SLOT, "Remote", "Interface", "Slot", "")            \
	X(REMOTE_CPU_MAX_FREQUENCY, "Remote", "CPU", "Max Freq", "MHz")        \
	X(REMOTE_CPU_GOVERNOR, "Remote", "CPU", "Governor", "")                \
	X(REMOTE_SMT, "Remote", "SMT", "", "")                                 \
	X(REMOTE_VULNERABLE, "Remote", "Vulnerable", "To", "")                 \
	X(REMOTE_MITIGATION_OPTIONS, "Remote", "Mitigation", "Options", "")    \
	X(REMOTE_HYPERVISOR, "Remote", "Hypervisor", "", "")                   \
	X(REMOTE_CONTAINER, "Remote", "Container", "", "")                     \
	X(REMOTE_NUMA_NODES, "Remote", "NUMA", "Nodes", "")                    \
	X(REMOTE_SYSTEM_VENDOR, "Remote", "System", "Vendor", "")              \
	X(REMOTE_INTERFACE_SPEED, "Remote", "Interface", "Speed", "Mb/s")      \
	X(REMOTE_INTERFACE_MTU, "Remote", "Interface", "MTU", "")              \
	X(REMOTE_INTERFACE_OFFLOADS, "Remote", "Interface", "Offloads", "")    \
	X(REMOTE_INTERFACE_IRQ_CPUS, "Remote", "Interface", "IRQ CPUs", "")    \
	X(REMOTE_QDISC, "Remote", "Qdisc", "", "")                             \
	X(REMOTE_BUILD, "Remote", "Build", "", "")                             \
	X(UUID, "Test", "UUID", "", "")                                        \
	X(TEST, "Test", "Name", "", "")                                        \
	X(MIN_LATENCY, "Minimum", "Latency", "Microseconds", "")               \
	X(MAX_LATENCY, "Maximum", "Latency", "Microseconds", "")               \
	X(P50_LATENCY, "50th", "Percentile", "Latency", "Microseconds")        \
	X(P90_LATENCY, "90th", "Percentile", "Latency", "Microseconds")        \
	X(P99_LATENCY, "99th", "Percentile", "Latency", "Microseconds")        \
	X(MEAN_LATENCY, "Mean", "Latency", "Microseconds", "")                 \
	X(STDDEV_LATENCY, "Stddev", "Latency", "Microseconds", "")             \
	X(P999_LATENCY, "99.9th", "Percentile", "Latency", "Microseconds")     \
	X(P9999_LATENCY, "99.99th", "Percentile", "Latency", "Microseconds")   \
	X(LOSS_COUNT, "Lost", "Messages", "", "")                              \
	X(LOSS_PERCENT, "Lost", "Messages", "%", "")                           \
	X(JITTER_MS, "Jitter", "Milliseconds", "", "")                         \
	X(DUPLICATES, "Duplicate", "Messages", "", "")                         \
	X(OUT_OF_ORDER, "Out of", "Order", "Messages", "")                     \
	X(LOCAL_SEND_ERRORS, "Local", "Send", "Errors", "")                    \
	X(LOCAL_DATA_PATH, "Local", "Data", "Path", "")                        \
	X(REMOTE_DATA_PATH, "Remote", "Data", "Path", "")                      \
	X(LOCAL_DATA_SYSCALLS, "Local", "Data", "Syscalls", "")                \
	X(REMOTE_DATA_SYSCALLS, "Remote", "Data", "Syscalls", "")              \
	X(REMOTE_GRO_COALESCED, "Remote", "GRO", "Coalesced", "Receives")      \
	X(LOCAL_RECV_NAPS, "Local", "Recv", "Naps", "")                        \
	X(REMOTE_RECV_NAPS, "Remote", "Recv", "Naps", "")                      \
	X(LOCAL_RECV_NAP_DROPS, "Local", "Recv", "Nap", "Drops")               \
	X(REMOTE_RECV_NAP_DROPS, "Remote", "Recv", "Nap", "Drops")             \
	X(LOCAL_ZEROCOPY_DONE, "Local", "Zerocopy", "Completions", "")         \
	X(LOCAL_ZEROCOPY_COPIED, "Local", "Zerocopy", "Copied", "")            \
	X(REMOTE_ZEROCOPY_DONE, "Remote", "Zerocopy", "Completions", "")       \
	X(REMOTE_ZEROCOPY_COPIED, "Remote", "Zerocopy", "Copied", "")          \
	X(LOCAL_BUSY_POLL, "Local", "Busy", "Poll", "Microseconds")            \
	X(REMOTE_BUSY_POLL, "Remote", "Busy", "Poll", "Microseconds")          \
	X(STREAMS, "Streams", "", "", "")                                      \
	X(FAIRNESS, "Fairness", "Index", "", "")                               \
	X(START_SCHEDULED, "Start", "Scheduled", "UTC ns", "")                 \
	X(START_ACTUAL, "Start", "Actual", "UTC ns", "")                       \
	X(END_TIME, "End", "Time", "UTC ns", "")                               \
	X(BIDIR_L2R_THROUGHPUT, "Bidir", "Local->Remote", "Throughput", "")    \
	X(BIDIR_R2L_THROUGHPUT, "Bidir", "Remote->Local", "Throughput", "")    \
	X(BIDIR_L2R_LOST, "Bidir", "Local->Remote", "Lost", "Messages")        \
	X(BIDIR_R2L_LOST, "Bidir", "Remote->Local", "Lost", "Messages")        \
	X(BIDIR_L2R_LOSS_PERCENT, "Bidir", "Local->Remote", "Lost", "%")       \
	X(BIDIR_R2L_LOSS_PERCENT, "Bidir", "Remote->Local", "Lost", "%")       \
	X(COMMAND_LINE, "Command", "Line", "", "")                             \
	X(LOCAL_MPTCP_SUBFLOWS, "Local", "MPTCP", "Subflows", "")              \
	X(REMOTE_MPTCP_SUBFLOWS, "Remote", "MPTCP", "Subflows", "")            \
	X(LOST_REQUESTS, "Lost", "Requests", "", "")                           \
	X(LOST_RESPONSES, "Lost", "Responses", "", "")                         \
	X(OUTBOUND_P50_LATENCY, "Outbound", "50th", "Percentile",              \
	  "Microseconds")                                                      \
	X(OUTBOUND_P99_LATENCY, "Outbound", "99th", "Percentile",              \
	  "Microseconds")                                                      \
	X(INBOUND_P50_LATENCY, "Inbound", "50th", "Percentile",                \
	  "Microseconds")                                                      \
	X(INBOUND_P99_LATENCY, "Inbound", "99th", "Percentile",                \
	  "Microseconds")                                                      \
	X(OFFERED_RATE, "Offered", "Rate", "Trans/s", "")                      \
	X(ACHIEVED_RATE, "Achieved", "Rate", "Trans/s", "")                    \
	X(SERVICE_P50_LATENCY, "Service", "50th", "Percentile", "Microseconds") \
	X(SERVICE_P99_LATENCY, "Service", "99th", "Percentile", "Microseconds") \
	X(SERVICE_P999_LATENCY, "Service", "99.9th", "Percentile",             \
	  "Microseconds")                                                      \
	X(SERVICE_MEAN_LATENCY, "Service", "Mean", "Latency", "Microseconds")  \
	X(TIMEOUTS, "Time-outs", "", "", "")                                   \
	X(ERRORS, "Connection", "Errors", "", "")                              \
	X(SEND_LAG_MEAN, "Send", "Lag", "Mean", "Microseconds")                \
	X(SEND_LAG_MAX, "Send", "Lag", "Maximum", "Microseconds")              \
	X(IDLE_P50_LATENCY, "Idle", "50th Pct", "Latency", "Microseconds")     \
	X(IDLE_P99_LATENCY, "Idle", "99th Pct", "Latency", "Microseconds")     \
	X(LOADED_P50_LATENCY, "Loaded", "50th Pct", "Latency", "Microseconds") \
	X(LOADED_P99_LATENCY, "Loaded", "99th Pct", "Latency", "Microseconds") \
	X(LOADED_LATENCY_RATIO, "Loaded", "Idle", "P50 Ratio", "")             \
	X(LOADED_ADDED_DELAY, "Loaded", "Added", "P50 Delay", "Milliseconds")  \
	X(LOAD_UP_THROUGHPUT, "Load", "Up", "Throughput", "10^6bits/s")        \
	X(LOAD_DOWN_THROUGHPUT, "Load", "Down", "Throughput", "10^6bits/s")    \
	X(IDLE_RPM, "Idle", "Round Trips", "per Minute", "")                   \
	X(LOADED_RPM, "Loaded", "Round Trips", "per Minute", "")               \
	X(MIX_CLASSES, "Request", "Mix", "", "")                               \
	X(MIX_SEED, "Mix", "Seed", "", "")                                     \
	X(MIX_TRANSACTIONS, "Mix", "Class", "Transactions", "")                \
	X(MIX_P99_LATENCY, "Mix", "Class", "99th Percentile", "Microseconds")  \
	X(MIX_TIMEOUTS, "Mix", "Class", "Time-outs", "")                       \
	X(LATE_ANSWERS, "Late", "Answers", "", "")                             \
	X(MIX_LATE_ANSWERS, "Mix", "Class", "Late", "Answers")                 \
	TCPINFO_FIELDS(SEL_TCP, X)                                             \
	TSTAMP_SELECTORS(SEL_TSTAMP, X)

/* --timestamps' parts of a round trip (np/tstamp.h). */
#define SEL_TSTAMP(X, name, part, stat, l0, l1, l2, l3) X(name, l0, l1, l2, l3)

/* Two selectors for each TCP_INFO figure, netperf's and netserver's
 * (ours): LOCAL_TCP_RTT, REMOTE_TCP_RTT... */
#define SEL_TCP(X, id, key, merge, counter, title, unit)                       \
	X(LOCAL_TCP_##id, "Local", "TCP", title, unit)                         \
	X(REMOTE_TCP_##id, "Remote", "TCP", title, unit)

enum sel_id {
#define SEL_ENUM(name, l0, l1, l2, l3) SEL_##name,
	OUTPUT_SELECTORS(SEL_ENUM)
#undef SEL_ENUM
	    SEL_COUNT
};

struct selector {
	const char *name;
	const char *line[4];
};

static const struct selector sel_table[SEL_COUNT] = {
#define SEL_ENTRY(name, l0, l1, l2, l3) {#name, {l0, l1, l2, l3}},
    OUTPUT_SELECTORS(SEL_ENTRY)
#undef SEL_ENTRY
};

_Static_assert(SEL_COUNT <= SELECT_MAX_FIELDS, "\"all\" must fit a list");

/* netperf 2.7's "all": its 173 selectors in its order (set_output_list_all
 * over its enum, SOCKET_TYPE to COMMAND_LINE), in its four blocks, so that
 * a script that reads columns by position or zips them with 2.7's names
 * reads the same ones. Ours are "all+". */
#define SEL_ALL_27                                                             \
	"SOCKET_TYPE,PROTOCOL,DIRECTION,ELAPSED_TIME,THROUGHPUT,"              \
	"THROUGHPUT_UNITS,LSS_SIZE_REQ,LSS_SIZE,LSS_SIZE_END,LSR_SIZE_REQ,"    \
	"LSR_SIZE,LSR_SIZE_END,RSS_SIZE_REQ,RSS_SIZE,RSS_SIZE_END,"            \
	"RSR_SIZE_REQ,RSR_SIZE,RSR_SIZE_END,LOCAL_SEND_SIZE,"                  \
	"LOCAL_RECV_SIZE,REMOTE_SEND_SIZE,REMOTE_RECV_SIZE,REQUEST_SIZE,"      \
	"RESPONSE_SIZE;LOCAL_CPU_UTIL,LOCAL_CPU_PERCENT_USER,"                 \
	"LOCAL_CPU_PERCENT_SYSTEM,LOCAL_CPU_PERCENT_IOWAIT,"                   \
	"LOCAL_CPU_PERCENT_IRQ,LOCAL_CPU_PERCENT_SWINTR,LOCAL_CPU_METHOD,"     \
	"LOCAL_SD,REMOTE_CPU_UTIL,REMOTE_CPU_PERCENT_USER,"                    \
	"REMOTE_CPU_PERCENT_SYSTEM,REMOTE_CPU_PERCENT_IOWAIT,"                 \
	"REMOTE_CPU_PERCENT_IRQ,REMOTE_CPU_PERCENT_SWINTR,"                    \
	"REMOTE_CPU_METHOD,REMOTE_SD,SD_UNITS,CONFIDENCE_LEVEL,"               \
	"CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID,"          \
	"LOCAL_CPU_CONFID,REMOTE_CPU_CONFID,TRANSACTION_RATE,RT_LATENCY,"      \
	"BURST_SIZE,LOCAL_TRANSPORT_RETRANS,REMOTE_TRANSPORT_RETRANS,"         \
	"TRANSPORT_MSS;LOCAL_SEND_THROUGHPUT,LOCAL_RECV_THROUGHPUT,"           \
	"REMOTE_SEND_THROUGHPUT,REMOTE_RECV_THROUGHPUT,LOCAL_CPU_BIND,"        \
	"LOCAL_CPU_COUNT,LOCAL_CPU_PEAK_UTIL,LOCAL_CPU_PEAK_ID,"               \
	"LOCAL_CPU_MODEL,LOCAL_CPU_FREQUENCY,REMOTE_CPU_BIND,"                 \
	"REMOTE_CPU_COUNT,REMOTE_CPU_PEAK_UTIL,REMOTE_CPU_PEAK_ID,"            \
	"REMOTE_CPU_MODEL,REMOTE_CPU_FREQUENCY,SOURCE_PORT,SOURCE_ADDR,"       \
	"SOURCE_FAMILY,DEST_PORT,DEST_ADDR,DEST_FAMILY,LOCAL_SEND_CALLS,"      \
	"LOCAL_RECV_CALLS,LOCAL_BYTES_PER_RECV,LOCAL_BYTES_PER_SEND,"          \
	"LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,LOCAL_BYTES_XFERD,"                \
	"LOCAL_SEND_OFFSET,LOCAL_RECV_OFFSET,LOCAL_SEND_ALIGN,"                \
	"LOCAL_RECV_ALIGN,LOCAL_SEND_WIDTH,LOCAL_RECV_WIDTH,"                  \
	"LOCAL_SEND_DIRTY_COUNT,LOCAL_RECV_DIRTY_COUNT,"                       \
	"LOCAL_RECV_CLEAN_COUNT,LOCAL_NODELAY,LOCAL_CORK,REMOTE_SEND_CALLS,"   \
	"REMOTE_RECV_CALLS,REMOTE_BYTES_PER_RECV,REMOTE_BYTES_PER_SEND,"       \
	"REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD,REMOTE_BYTES_XFERD,"             \
	"REMOTE_SEND_OFFSET,REMOTE_RECV_OFFSET,REMOTE_SEND_ALIGN,"             \
	"REMOTE_RECV_ALIGN,REMOTE_SEND_WIDTH,REMOTE_RECV_WIDTH,"               \
	"REMOTE_SEND_DIRTY_COUNT,REMOTE_RECV_DIRTY_COUNT,"                     \
	"REMOTE_RECV_CLEAN_COUNT,REMOTE_NODELAY,REMOTE_CORK;LOCAL_SYSNAME,"    \
	"LOCAL_SYSTEM_MODEL,LOCAL_RELEASE,LOCAL_VERSION,LOCAL_MACHINE,"        \
	"REMOTE_SYSNAME,REMOTE_SYSTEM_MODEL,REMOTE_RELEASE,REMOTE_VERSION,"    \
	"REMOTE_MACHINE,LOCAL_INTERFACE_NAME,LOCAL_INTERFACE_VENDOR,"          \
	"LOCAL_INTERFACE_DEVICE,LOCAL_INTERFACE_SUBVENDOR,"                    \
	"LOCAL_INTERFACE_SUBDEVICE,LOCAL_DRIVER_NAME,LOCAL_DRIVER_VERSION,"    \
	"LOCAL_DRIVER_FIRMWARE,LOCAL_DRIVER_BUS,LOCAL_INTERFACE_SLOT,"         \
	"REMOTE_INTERFACE_NAME,REMOTE_INTERFACE_VENDOR,"                       \
	"REMOTE_INTERFACE_DEVICE,REMOTE_INTERFACE_SUBVENDOR,"                  \
	"REMOTE_INTERFACE_SUBDEVICE,REMOTE_DRIVER_NAME,"                       \
	"REMOTE_DRIVER_VERSION,REMOTE_DRIVER_FIRMWARE,REMOTE_DRIVER_BUS,"      \
	"REMOTE_INTERFACE_SLOT,LOCAL_INTERVAL_USECS,LOCAL_INTERVAL_BURST,"     \
	"REMOTE_INTERVAL_USECS,REMOTE_INTERVAL_BURST,"                         \
	"LOCAL_SECURITY_TYPE_ID,LOCAL_SECURITY_TYPE,"                          \
	"LOCAL_SECURITY_ENABLED_NUM,LOCAL_SECURITY_ENABLED,"                   \
	"LOCAL_SECURITY_SPECIFIC,REMOTE_SECURITY_TYPE_ID,"                     \
	"REMOTE_SECURITY_TYPE,REMOTE_SECURITY_ENABLED_NUM,"                    \
	"REMOTE_SECURITY_ENABLED,REMOTE_SECURITY_SPECIFIC,RESULT_BRAND,"       \
	"UUID,MIN_LATENCY,MAX_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,"    \
	"MEAN_LATENCY,STDDEV_LATENCY,LOCAL_SOCKET_PRIO,REMOTE_SOCKET_PRIO,"    \
	"LOCAL_SOCKET_TOS,REMOTE_SOCKET_TOS,LOCAL_CONG_CONTROL,"               \
	"REMOTE_CONG_CONTROL,LOCAL_FILL_FILE,REMOTE_FILL_FILE,COMMAND_LINE"

/* Where "all+" starts netperf's second, third and fourth block. */
static int
sel_starts_block(int id)
{
	return id == SEL_LOCAL_CPU_UTIL || id == SEL_LOCAL_SEND_THROUGHPUT ||
	       id == SEL_LOCAL_SYSNAME;
}

/* Room for any one value: the command line quoted, with some to spare. */
#define VAL_LEN 1280

/* The figures every format takes from the result, so -o, -O, -k and
 * --json cannot disagree. */

static double
cpu_util(const struct result *res, int loc)
{
	return figure_side(res, loc)->util;
}

static double
cpu_sd(const struct result *res, int loc)
{
	return figure_side(res, loc)->sd;
}

/* The side's machine-wide CPU shares. */
static const struct cpu_load *
load_of(const struct result *res, int loc)
{
	return &figure_counts(res, loc)->cpu.all;
}

/* A CPU share, or 0 when that side's CPU was not measured: 2.7 prints
 * its five shares (user, system, iowait, irq, swintr) as 0.00 then, and
 * scripts that read them read 0.00. */
static double
cpu_share(const struct result *res, int loc, double v)
{
	return figure_cpu_on(res, loc) ? v : 0;
}

/* A stream test in which netperf sends. */
static int
stream_sends(const struct result *res)
{
	return res->m->flow == MODULE_TO_SERVER;
}

static double
per_call(uint64_t bytes, uint64_t calls)
{
	return calls ? (double)bytes / (double)calls : 0;
}

static void
put_f2(char *b, size_t cap, double v)
{
	snprintf(b, cap, "%.2f", v);
}

static void
put_f3(char *b, size_t cap, double v)
{
	snprintf(b, cap, "%.3f", v);
}

static void
put_i(char *b, size_t cap, long long v)
{
	snprintf(b, cap, "%lld", v);
}

static void
put_u(char *b, size_t cap, uint64_t v)
{
	snprintf(b, cap, "%llu", (unsigned long long)v);
}

static void
put_s(char *b, size_t cap, const char *s)
{
	snprintf(b, cap, "%s", s);
}

/* netperf prints latency as whole microseconds; -1 without a histogram. */
static void
put_lat_int(char *b, size_t cap, const struct result *res, double v)
{
	if (res->lat.count == 0)
		put_i(b, cap, -1);
	else
		snprintf(b, cap, "%.0f", v);
}

static void
put_lat_f2(char *b, size_t cap, const struct result *res, double v)
{
	put_f2(b, cap, res->lat.count == 0 ? -1 : v);
}

/* The command line in double quotes as netperf prints it, with any quote
 * inside doubled so a CSV reader gets it back whole. */
static void
put_quoted(char *b, size_t cap, const char *s)
{
	size_t n = 0;

	if (cap < 3) {
		b[0] = '\0';
		return;
	}
	b[n++] = '"';
	for (; *s != '\0' && n + 3 < cap; s++) {
		if (*s == '"')
			b[n++] = '"';
		b[n++] = *s;
	}
	b[n++] = '"';
	b[n] = '\0';
}

/* netperf's "0x%.4x" for a PCI id; an unknown one (-1) prints as
 * 2.6's did when sysfs had no such file. */
static void
put_id(char *b, size_t cap, int v)
{
	snprintf(b, cap, "0x%.4x", (unsigned)v);
}

/* A selector that prints one of a side's plain figures as it is (the
 * side table's sel[]); returns 1 when id is one. */
static int
side_value(const struct result *res, int id, char *b, size_t cap)
{
	int loc;
	const struct side_field *f = side_by_selector(sel_table[id].name, &loc);
	const struct side_result *s;

	if (f == NULL)
		return 0;
	s = figure_counts(res, loc);
	switch (f->kind) {
	case SIDE_U64:
	case SIDE_U32:
		put_u(b, cap, side_get_u64(s, f));
		break;
	case SIDE_STR:
		put_s(b, cap, side_get_str(s, f));
		break;
	case SIDE_DBL:
		put_f3(b, cap, side_get_dbl(s, f));
		break;
	default:
		put_i(b, cap, side_get_i64(s, f));
		break;
	}
	return 1;
}

/* The test itself and the sizes it asked for and used; returns 1 when id is one
 * of them. */
static int
sel_test(const struct result *res, int id, char *b, size_t cap)
{
	switch (id) {
	case SEL_SOCKET_TYPE:
		/* 2.7's hst_to_str (the JSON keeps SOCK_STREAM) */
		put_s(b, cap,
		      transport_socktype_word(transport_of(res->m, &res->p)));
		break;
	case SEL_PROTOCOL:
		put_s(b, cap, figure_protocol(res));
		break;
	case SEL_DIRECTION:
		put_s(b, cap, figure_direction(res));
		break;
	case SEL_ELAPSED_TIME:
		put_f2(b, cap, res->elapsed);
		break;
	case SEL_THROUGHPUT:
		put_f2(b, cap, res->thruput);
		break;
	case SEL_THROUGHPUT_UNITS:
		snprintf(b, cap, "%s/s", figure_unit_label(res));
		break;
	case SEL_LSS_SIZE_REQ:
		put_i(b, cap, res->p.lsndbuf);
		break;
	case SEL_LSR_SIZE_REQ:
		put_i(b, cap, res->p.lrcvbuf);
		break;
	case SEL_RSS_SIZE_REQ:
		put_i(b, cap, res->p.rsndbuf);
		break;
	case SEL_RSR_SIZE_REQ:
		put_i(b, cap, res->p.rrcvbuf);
		break;
	/* For a test netperf sends in, 2.7 prints 0 for its receive size
	 * and -1 for netserver's send size, which the test does not use. */
	case SEL_LOCAL_RECV_SIZE:
		put_i(b, cap,
		      stream_sends(res)
			  ? 0
			  : res->side[RESULT_LOCAL].sum.recv_size);
		break;
	case SEL_REMOTE_SEND_SIZE:
		put_i(b, cap,
		      stream_sends(res)
			  ? -1
			  : res->side[RESULT_REMOTE].sum.send_size);
		break;
	/* -1 on a stream test, as 2.7 */
	case SEL_REQUEST_SIZE:
		put_i(b, cap, module_is_rr(res->m) ? res->p.req_size : -1);
		break;
	case SEL_RESPONSE_SIZE:
		put_i(b, cap, module_is_rr(res->m) ? res->p.rsp_size : -1);
		break;
	default:
		return 0;
	}
	return 1;
}

/* Confidence, transaction rates, retransmissions and each side's rates; returns
 * 1 when id is one of them. */
static int
sel_rates(const struct result *res, int id, char *b, size_t cap)
{
	switch (id) {
	case SEL_CONFIDENCE_LEVEL:
		put_i(b, cap, res->conf.level);
		break;
	case SEL_CONFIDENCE_INTERVAL:
		snprintf(b, cap, "%f",
			 res->conf.width > 0 ? res->conf.width : -1);
		break;
	case SEL_CONFIDENCE_ITERATION:
		put_i(b, cap, res->conf.iterations);
		break;
	case SEL_THROUGHPUT_CONFID:
		put_f3(b, cap, res->conf.thruput);
		break;
	case SEL_TRANSACTION_RATE:
		put_f3(b, cap, res->trans_rate);
		break;
	case SEL_RT_LATENCY:
		put_f3(b, cap, result_rt_latency(res));
		break;
	case SEL_BURST_SIZE:
		put_i(b, cap, res->p.burst);
		break;
	default:
		return 0;
	}
	return 1;
}

/* The test's name, latency and datagram losses; returns 1 when id is one of
 * them. */
static int
sel_latency(const struct result *res, int id, char *b, size_t cap)
{
	switch (id) {
	case SEL_UUID:
		put_s(b, cap, res->uuid);
		break;
	case SEL_TEST:
		put_s(b, cap, res->m->name);
		break;
	case SEL_MIN_LATENCY:
		put_lat_int(b, cap, res, res->lat.min);
		break;
	case SEL_MAX_LATENCY:
		put_lat_int(b, cap, res, res->lat.max);
		break;
	case SEL_P50_LATENCY:
		put_lat_int(b, cap, res, res->lat.p50);
		break;
	case SEL_P90_LATENCY:
		put_lat_int(b, cap, res, res->lat.p90);
		break;
	case SEL_P99_LATENCY:
		put_lat_int(b, cap, res, res->lat.p99);
		break;
	case SEL_P999_LATENCY:
		put_lat_int(b, cap, res, res->lat.p999);
		break;
	case SEL_P9999_LATENCY:
		put_lat_int(b, cap, res, res->lat.p9999);
		break;
	case SEL_MEAN_LATENCY:
		put_lat_f2(b, cap, res, res->lat.mean);
		break;
	case SEL_STDDEV_LATENCY:
		put_lat_f2(b, cap, res, res->lat.stddev);
		break;
	case SEL_LOSS_COUNT:
		put_u(b, cap, res->lost);
		break;
	case SEL_LOSS_PERCENT:
		put_f2(b, cap, res->loss_pct);
		break;
	case SEL_JITTER_MS:
		put_f3(b, cap, res->jitter * 1e3);
		break;
	case SEL_DUPLICATES:
		put_u(b, cap, res->dups);
		break;
	case SEL_OUT_OF_ORDER:
		put_u(b, cap, res->reordered);
		break;
	default:
		return 0;
	}
	return 1;
}

/* Streams, wall-clock times, the command line and --bidir; returns 1 when id is
 * one of them. */
static int
sel_run(const struct result *res, int id, char *b, size_t cap)
{
	switch (id) {
	case SEL_STREAMS:
		put_i(b, cap, figure_nstreams(res));
		break;
	case SEL_FAIRNESS:
		snprintf(b, cap, "%.4f", res->fairness);
		break;
	case SEL_START_SCHEDULED:
		put_i(b, cap, res->p.start_at_ns > 0 ? res->p.start_at_ns : -1);
		break;
	case SEL_START_ACTUAL:
		put_i(b, cap,
		      res->side[RESULT_LOCAL].sum.wall_start_ns > 0
			  ? res->side[RESULT_LOCAL].sum.wall_start_ns
			  : -1);
		break;
	case SEL_END_TIME:
		put_i(b, cap,
		      res->side[RESULT_LOCAL].sum.wall_end_ns > 0
			  ? res->side[RESULT_LOCAL].sum.wall_end_ns
			  : -1);
		break;
	case SEL_COMMAND_LINE:
		put_quoted(b, cap, res->command_line);
		break;
	default:
		return 0;
	}
	return 1;
}

/* netperf 2.7's ports, its brand and its empty column; returns 1 when id
 * is one of them. */
static int
compat_misc(const struct result *res, int id, char *b, size_t cap)
{
	const struct test_params *p = &res->p;

	switch (id) {
	case SEL_OUTPUT_NONE:
		put_s(b, cap, " ");
		break;
	case SEL_SOURCE_PORT:
		put_i(b, cap, p->ldata_port);
		break;
	case SEL_DEST_PORT:
		put_i(b, cap, p->data_port);
		break;
	case SEL_RESULT_BRAND:
		/* Without -B 2.7 has no brand: an empty field. */
		if (res->brand[0] != '\0')
			snprintf(b, cap, "\"%s\"", res->brand);
		else
			b[0] = '\0';
		break;
	default:
		return 0;
	}
	return 1;
}

/* Which way it went (oneway.c): the lost requests and answers, and the
 * one-way delays; -1 when not measured, as latency without a histogram
 * is. Returns 1 when id is one of them. */
static int
sel_oneway(const struct result *res, int id, char *b, size_t cap)
{
	uint64_t lreq, lrsp;
	double v;

	switch (id) {
	case SEL_LOST_REQUESTS:
	case SEL_LOST_RESPONSES:
		if (oneway_lost(res, &lreq, &lrsp) < 0)
			put_i(b, cap, -1);
		else
			put_u(b, cap, id == SEL_LOST_REQUESTS ? lreq : lrsp);
		return 1;
	case SEL_OUTBOUND_P50_LATENCY:
		v = oneway_latency_us(res, 0, 50);
		break;
	case SEL_OUTBOUND_P99_LATENCY:
		v = oneway_latency_us(res, 0, 99);
		break;
	case SEL_INBOUND_P50_LATENCY:
		v = oneway_latency_us(res, 1, 50);
		break;
	case SEL_INBOUND_P99_LATENCY:
		v = oneway_latency_us(res, 1, 99);
		break;
	default:
		return 0;
	}
	if (v < 0)
		put_i(b, cap, -1);
	else
		snprintf(b, cap, "%.0f", v);
	return 1;
}

/* The open loop's figures (--rate, rr_open.c): -1 where a test has none;
 * returns 1 when id is one of them. */
static int
sel_open(const struct result *res, int id, char *b, size_t cap)
{
	const struct side_result *s = &res->side[RESULT_LOCAL].sum;
	int open = module_has(res->m, MODULE_F_OPEN) && res->p.rate > 0;
	const struct result_latency *l = &res->svc;

	switch (id) {
	case SEL_OFFERED_RATE:
		put_f2(b, cap, open ? res->p.rate : -1);
		break;
	case SEL_ACHIEVED_RATE:
		put_f2(b, cap,
		       module_has(res->m, MODULE_F_OPEN) &&
			       module_open_loop(&res->p)
			   ? res->trans_rate
			   : -1);
		break;
	case SEL_SERVICE_P50_LATENCY:
	case SEL_SERVICE_P99_LATENCY:
	case SEL_SERVICE_P999_LATENCY:
		if (l->count == 0)
			put_i(b, cap, -1);
		else
			snprintf(b, cap, "%.0f",
				 id == SEL_SERVICE_P50_LATENCY	 ? l->p50
				 : id == SEL_SERVICE_P99_LATENCY ? l->p99
								 : l->p999);
		break;
	case SEL_SERVICE_MEAN_LATENCY:
		put_f2(b, cap, l->count == 0 ? -1 : l->mean);
		break;
	case SEL_SEND_LAG_MEAN:
		put_f2(b, cap,
		       open && s->requests > 0
			   ? (double)s->lag_ns / (double)s->requests / 1e3
			   : -1);
		break;
	case SEL_SEND_LAG_MAX:
		put_f2(b, cap, open ? (double)s->lag_max_ns / 1e3 : -1);
		break;
	default:
		return 0;
	}
	return 1;
}

/* --under-load's figures (underload.h); "" without it. Returns 1 when id
 * is one of them. */
static int
sel_underload(const struct result *res, int id, char *b, size_t cap)
{
	const struct underload *u = res->load;
	double v;

	switch (id) {
	case SEL_IDLE_P50_LATENCY:
		v = u != NULL ? u->idle_p50 : 0;
		break;
	case SEL_IDLE_P99_LATENCY:
		v = u != NULL ? u->idle_p99 : 0;
		break;
	case SEL_LOADED_P50_LATENCY:
		v = u != NULL ? u->loaded_p50 : 0;
		break;
	case SEL_LOADED_P99_LATENCY:
		v = u != NULL ? u->loaded_p99 : 0;
		break;
	case SEL_IDLE_RPM:
		v = u != NULL ? u->idle_rpm : 0;
		break;
	case SEL_LOADED_RPM:
		v = u != NULL ? u->loaded_rpm : 0;
		break;
	case SEL_LOADED_LATENCY_RATIO:
		if (u != NULL)
			put_f2(b, cap, u->ratio);
		else
			b[0] = '\0';
		return 1;
	case SEL_LOADED_ADDED_DELAY:
		if (u != NULL)
			put_f3(b, cap, u->added_ms);
		else
			b[0] = '\0';
		return 1;
	case SEL_LOAD_UP_THROUGHPUT:
	case SEL_LOAD_DOWN_THROUGHPUT:
		if (u != NULL)
			put_f2(b, cap,
			       id == SEL_LOAD_UP_THROUGHPUT ? u->up_mbps
							    : u->down_mbps);
		else
			b[0] = '\0';
		return 1;
	default:
		return 0;
	}
	/* Whole microseconds and whole round trips, as the other latency
	 * selectors print them. */
	if (u != NULL)
		snprintf(b, cap, "%.0f", v);
	else
		b[0] = '\0';
	return 1;
}

/* A request mix's figures: the mix as -r takes it, its seed, and each
 * class's transactions, P99 (microseconds, -1 for none timed),
 * time-outs and late answers joined by '/' in -r's order, as the mix is
 * written (a ',' would split -o's CSV); -1 without a mix. */
static int
sel_mix(const struct result *res, int id, char *b, size_t cap)
{
	const struct mix *m = &res->p.mix;
	size_t off = 0;
	int i, n;

	if (id != SEL_MIX_CLASSES && id != SEL_MIX_SEED &&
	    id != SEL_MIX_TRANSACTIONS && id != SEL_MIX_P99_LATENCY &&
	    id != SEL_MIX_TIMEOUTS && id != SEL_MIX_LATE_ANSWERS)
		return 0;
	if (m->n == 0 || res->mix == NULL || res->mix_hist == NULL) {
		put_i(b, cap, -1);
		return 1;
	}
	if (id == SEL_MIX_SEED) {
		put_u(b, cap, m->seed);
		return 1;
	}
	b[0] = '\0';
	for (i = 0; i < m->n && off < cap; i++) {
		const struct stats_hist *h = &res->mix_hist[i];
		const char *sep = i > 0 ? "/" : "";

		if (id == SEL_MIX_CLASSES)
			n = snprintf(b + off, cap - off, "%s%g%%%lld,%lld", sep,
				     m->c[i].weight, (long long)m->c[i].req,
				     (long long)m->c[i].rsp);
		else if (id == SEL_MIX_TRANSACTIONS)
			n = snprintf(b + off, cap - off, "%s%llu", sep,
				     (unsigned long long)res->mix[i].trans);
		else if (id == SEL_MIX_TIMEOUTS)
			n = snprintf(b + off, cap - off, "%s%llu", sep,
				     (unsigned long long)res->mix[i].timeouts);
		else if (id == SEL_MIX_LATE_ANSWERS)
			n = snprintf(b + off, cap - off, "%s%llu", sep,
				     (unsigned long long)res->mix[i].late);
		else
			n = snprintf(b + off, cap - off, "%s%.2f", sep,
				     h->count > 0
					 ? stats_hist_percentile(h, 99) / 1e3
					 : -1.0);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return 1;
}

/* --timestamps' figures; -1 without them. */
static int
sel_tstamp(const struct result *res, int id, char *b, size_t cap)
{
#define SEL_TSTAMP_MAP(X, name, part, stat, l0, l1, l2, l3)                    \
	{SEL_##name, part, stat},
	static const struct {
		int id, part, stat;
	} map[] = {TSTAMP_SELECTORS(SEL_TSTAMP_MAP, X)};
#undef SEL_TSTAMP_MAP
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].id == id) {
			tstamp_select(res->tstamp, map[i].part, map[i].stat,
				      b, cap);
			return 1;
		}
	return 0;
}

/*
 * The selectors that come in LOCAL_/REMOTE_ pairs (and SOURCE_/DEST_,
 * --bidir's L2R/R2L): one getter for both, given loc, 1 for netperf's
 * side (the direction it sends in) and 0 for netserver's.
 */

static void
get_cpu_util(const struct result *res, int loc, char *b, size_t cap)
{
	put_f2(b, cap, cpu_util(res, loc));
}

/* A CPU share of the side's machine-wide load. */
#define SEL_GET_SHARE(name, member)                                            \
	static void get_cpu_##name(const struct result *res, int loc, char *b, \
				   size_t cap)                                 \
	{                                                                      \
		put_f2(b, cap, cpu_share(res, loc, load_of(res, loc)->member)); \
	}
SEL_GET_SHARE(user, user)
SEL_GET_SHARE(system, system)
SEL_GET_SHARE(iowait, iowait)
SEL_GET_SHARE(irq, irq)
SEL_GET_SHARE(swintr, softirq)
#undef SEL_GET_SHARE

/* Ours: -1 when not measured, as the JSON says. */
static void
get_cpu_steal(const struct result *res, int loc, char *b, size_t cap)
{
	put_f2(b, cap, figure_cpu_on(res, loc) ? load_of(res, loc)->steal : -1);
}

static void
get_cpu_method(const struct result *res, int loc, char *b, size_t cap)
{
	snprintf(b, cap, "%c",
		 result_cpu_method(res, loc ? RESULT_LOCAL : RESULT_REMOTE));
}

static void
get_sd(const struct result *res, int loc, char *b, size_t cap)
{
	put_f3(b, cap, cpu_sd(res, loc));
}

static void
get_cpu_confid(const struct result *res, int loc, char *b, size_t cap)
{
	put_f3(b, cap, loc ? res->conf.local_cpu : res->conf.remote_cpu);
}

/* -1 on UDP, which has no retransmissions, as 2.7 */
static void
get_retrans(const struct result *res, int loc, char *b, size_t cap)
{
	if (!transport_of(res->m, &res->p)->tcp_info)
		put_i(b, cap, -1);
	else
		put_u(b, cap, figure_counts(res, loc)->retrans);
}

static void
get_send_thruput(const struct result *res, int loc, char *b, size_t cap)
{
	put_f2(b, cap, figure_side_thruput(res, loc, 1));
}

static void
get_recv_thruput(const struct result *res, int loc, char *b, size_t cap)
{
	put_f2(b, cap, figure_side_thruput(res, loc, 0));
}

static void
get_cpu_bind(const struct result *res, int loc, char *b, size_t cap)
{
	const struct result_place *pl = &figure_side(res, loc)->place;

	put_s(b, cap, pl->requested[0] ? pl->requested : "-1");
}

static void
get_cpu_count(const struct result *res, int loc, char *b, size_t cap)
{
	put_i(b, cap, figure_cpu_count(res, loc));
}

/* netserver's peak when it did not measure is 2.7's 0.00 and 0 (its
 * results' zeroes); netperf's own is -1.00 and -1, as 2.7's. */
static void
get_cpu_peak(const struct result *res, int loc, char *b, size_t cap)
{
	put_f2(b, cap,
	       loc || figure_cpu_on(res, loc) ? figure_cpu_peak(res, loc) : 0);
}

static void
get_cpu_peak_id(const struct result *res, int loc, char *b, size_t cap)
{
	put_i(b, cap,
	      loc || figure_cpu_on(res, loc) ? figure_cpu_peak_id(res, loc)
					     : 0);
}

static void
get_addr(const struct result *res, int loc, char *b, size_t cap)
{
	put_s(b, cap, figure_side(res, loc)->addr);
}

static void
get_bytes_per_recv(const struct result *res, int loc, char *b, size_t cap)
{
	const struct side_result *s = figure_counts(res, loc);

	put_f2(b, cap, per_call(s->bytes_recv, s->recv_calls));
}

static void
get_bytes_per_send(const struct result *res, int loc, char *b, size_t cap)
{
	const struct side_result *s = figure_counts(res, loc);

	put_f2(b, cap, per_call(s->bytes_sent, s->send_calls));
}

static void
get_bytes_xferd(const struct result *res, int loc, char *b, size_t cap)
{
	const struct side_result *s = figure_counts(res, loc);

	put_u(b, cap, s->bytes_sent + s->bytes_recv);
}

static void
get_sysname(const struct result *res, int loc, char *b, size_t cap)
{
	figure_kernel_part(figure_side(res, loc)->env.kernel, 0, b, cap);
}

static void
get_release(const struct result *res, int loc, char *b, size_t cap)
{
	figure_kernel_part(figure_side(res, loc)->env.kernel, 1, b, cap);
}

static void
get_cpu_model(const struct result *res, int loc, char *b, size_t cap)
{
	put_s(b, cap, figure_side(res, loc)->env.cpu_model);
}

static void
get_hostname(const struct result *res, int loc, char *b, size_t cap)
{
	put_s(b, cap, figure_side(res, loc)->env.hostname);
}

/* netperf 2.7's buffer options, in its formats (-1 for a count not asked
 * for). */
static const struct module_bufs *
bufs_of(const struct result *res, int loc)
{
	return loc ? &res->p.lbuf : &res->p.rbuf;
}

static void
get_send_width(const struct result *res, int loc, char *b, size_t cap)
{
	int w = bufs_of(res, loc)->width;

	put_i(b, cap, w > 1 ? w : 1);
}

/* A buffer option that prints as it is, or dflt when not given (0). */
#define SEL_GET_BUF(name, member, dflt)                                        \
	static void get_##name(const struct result *res, int loc, char *b,     \
			       size_t cap)                                     \
	{                                                                      \
		long long v = bufs_of(res, loc)->member;                       \
                                                                               \
		put_i(b, cap, v > 0 || (dflt) == 0 ? v : (dflt));              \
	}
SEL_GET_BUF(send_offset, soff, 0)
SEL_GET_BUF(recv_offset, roff, 0)
/* A page-aligned buffer is 8-aligned: 2.7's default of 8. */
SEL_GET_BUF(send_align, salign, 8)
SEL_GET_BUF(recv_align, ralign, 8)
SEL_GET_BUF(dirty, dirty, -1)
SEL_GET_BUF(clean, clean, -1)
#undef SEL_GET_BUF

/* netperf 2.7's socket options, in its formats: TOS as 0x%.2x, so -1 is
 * 0xffffffff. */
static const struct sock_extra *
sockx_of(const struct result *res, int loc)
{
	return loc ? &res->p.lx : &res->p.rx;
}

static void
get_cork(const struct result *res, int loc, char *b, size_t cap)
{
	put_i(b, cap, sockx_of(res, loc)->cork);
}

static void
get_prio(const struct result *res, int loc, char *b, size_t cap)
{
	put_i(b, cap, sockx_of(res, loc)->prio);
}

static void
get_tos(const struct result *res, int loc, char *b, size_t cap)
{
	snprintf(b, cap, "0x%.2x", (unsigned)sockx_of(res, loc)->tos);
}

/* -i's pacing is netperf's own; netserver's is 0. */
static void
get_interval_usecs(const struct result *res, int loc, char *b, size_t cap)
{
	put_i(b, cap, loc ? (long long)(res->p.interval_ms * 1000) : 0);
}

static void
get_interval_burst(const struct result *res, int loc, char *b, size_t cap)
{
	put_i(b, cap, loc ? res->p.interval_burst : 0);
}

/* The fill file is never sent: netserver fills with its own pattern. */
static void
get_fill_file(const struct result *res, int loc, char *b, size_t cap)
{
	put_s(b, cap, loc ? res->p.fill_file : "");
}

/* --bidir's figures for the direction loc's side sends in: -1 without
 * --bidir, and for a loss where the test does not number its datagrams
 * (TCP). */
enum bidir_fig { BIDIR_THRUPUT, BIDIR_LOST, BIDIR_LOSS_PCT };

static void
put_bidir(const struct result *res, int loc, enum bidir_fig fig, char *b,
	  size_t cap)
{
	const struct result_dir *d = &res->dir[loc ? 0 : 1];

	if (!res->p.bidir ||
	    (fig != BIDIR_THRUPUT && !module_has(res->m, MODULE_F_SEQ)))
		put_i(b, cap, -1);
	else if (fig == BIDIR_LOST)
		put_u(b, cap, d->lost);
	else
		put_f2(b, cap, fig == BIDIR_THRUPUT ? d->thruput : d->loss_pct);
}

static void
get_bidir_thruput(const struct result *res, int loc, char *b, size_t cap)
{
	put_bidir(res, loc, BIDIR_THRUPUT, b, cap);
}

static void
get_bidir_lost(const struct result *res, int loc, char *b, size_t cap)
{
	put_bidir(res, loc, BIDIR_LOST, b, cap);
}

static void
get_bidir_loss_pct(const struct result *res, int loc, char *b, size_t cap)
{
	put_bidir(res, loc, BIDIR_LOSS_PCT, b, cap);
}

/* The platform record of loc's side: a figure that prints as it is. */
#define SEL_GET_PLATFORM(name, put, expr)                                      \
	static void get_##name(const struct result *res, int loc, char *b,     \
			       size_t cap)                                     \
	{                                                                      \
		const struct platform *pl = &figure_side(res, loc)->platform;  \
                                                                               \
		put(b, cap, expr);                                             \
	}
SEL_GET_PLATFORM(cpu_mhz, put_i, pl->cpu_mhz)
SEL_GET_PLATFORM(version, put_s, pl->version)
SEL_GET_PLATFORM(system_model, put_s, pl->system_model)
SEL_GET_PLATFORM(nic_name, put_s, pl->nic.name)
SEL_GET_PLATFORM(nic_vendor, put_id, pl->nic.vendor)
SEL_GET_PLATFORM(nic_device, put_id, pl->nic.device)
SEL_GET_PLATFORM(nic_subvendor, put_id, pl->nic.subvendor)
SEL_GET_PLATFORM(nic_subdevice, put_id, pl->nic.subdevice)
SEL_GET_PLATFORM(driver, put_s, pl->nic.driver)
SEL_GET_PLATFORM(driver_version, put_s, pl->nic.driver_version)
SEL_GET_PLATFORM(firmware, put_s, pl->nic.firmware)
SEL_GET_PLATFORM(bus, put_s, pl->nic.bus)
SEL_GET_PLATFORM(slot, put_s, pl->nic.slot)
SEL_GET_PLATFORM(cpu_max_mhz, put_i, pl->cpu_max_mhz)
SEL_GET_PLATFORM(governor, put_s, pl->governor)
SEL_GET_PLATFORM(smt, put_s, pl->smt < 0 ? "" : pl->smt ? "on" : "off")
SEL_GET_PLATFORM(mitigations, put_s, pl->cmdline_mitigations)
SEL_GET_PLATFORM(hypervisor, put_s, pl->hypervisor)
SEL_GET_PLATFORM(container, put_s, pl->container)
SEL_GET_PLATFORM(numa_nodes, put_i, pl->numa_nodes)
SEL_GET_PLATFORM(system_vendor, put_s, pl->system_vendor)
SEL_GET_PLATFORM(speed, put_i, pl->nic.speed_mbps)
SEL_GET_PLATFORM(mtu, put_i, pl->nic.mtu)
SEL_GET_PLATFORM(irq_cpus, put_s, pl->nic.irq_cpus)
SEL_GET_PLATFORM(qdisc, put_s, pl->nic.qdisc)
SEL_GET_PLATFORM(build, put_s, pl->build)
#undef SEL_GET_PLATFORM

/* The machine, or uname's when the platform record has none. */
static void
get_machine(const struct result *res, int loc, char *b, size_t cap)
{
	const struct result_side *sd = figure_side(res, loc);

	if (sd->platform.machine[0] != '\0')
		put_s(b, cap, sd->platform.machine);
	else
		figure_kernel_part(sd->env.kernel, 2, b, cap);
}

static void
get_vulnerable(const struct result *res, int loc, char *b, size_t cap)
{
	platform_vulnerable_text(&figure_side(res, loc)->platform, b, cap);
}

static void
get_offloads(const struct result *res, int loc, char *b, size_t cap)
{
	platform_offloads_text(&figure_side(res, loc)->platform.nic, b, cap);
}

/* A TCP_INFO figure: -1 where the test has no TCP_INFO or the kernel
 * does not report it. */
static void
put_tcpi(const struct result *res, int loc, int i, char *b, size_t cap)
{
	const struct tcpinfo *t = &figure_counts(res, loc)->tcpi;

	put_i(b, cap, t->n > 0 ? t->v[i] : -1);
}

#define SEL_GET_TCP(X, id, key, merge, counter, title, unit)                   \
	static void get_tcp_##id(const struct result *res, int loc, char *b,   \
				 size_t cap)                                   \
	{                                                                      \
		put_tcpi(res, loc, TCPINFO_##id, b, cap);                      \
	}
TCPINFO_FIELDS(SEL_GET_TCP, _)
#undef SEL_GET_TCP

/* The same for either side, or for neither. */

/* -D sets TCP_NODELAY on both ends. */
static void
get_nodelay(const struct result *res, int loc, char *b, size_t cap)
{
	(void)loc;
	put_i(b, cap, res->p.nodelay != 0);
}

/* netperf prints the AF_ number of the data connection. */
static void
get_family(const struct result *res, int loc, char *b, size_t cap)
{
	(void)loc;
	put_i(b, cap, res->family);
}

static void
get_sd_units(const struct result *res, int loc, char *b, size_t cap)
{
	(void)loc;
	put_s(b, cap, figure_sd_units(res));
}

/* 2.7's receive width: one buffer receives. */
static void
get_one(const struct result *res, int loc, char *b, size_t cap)
{
	(void)res;
	(void)loc;
	put_i(b, cap, 1);
}

/* The security selectors 2.7 keeps but no longer fills. */
static void
get_zero(const struct result *res, int loc, char *b, size_t cap)
{
	(void)res;
	(void)loc;
	put_i(b, cap, 0);
}

static void
get_deprecated(const struct result *res, int loc, char *b, size_t cap)
{
	(void)res;
	(void)loc;
	put_s(b, cap, "Deprecated");
}

/* Which end a selector reads. */
enum sel_side { SEL_SIDE_NONE, SEL_SIDE_LOCAL, SEL_SIDE_REMOTE };

/* A selector's side and its getter; loc is 1 for SEL_SIDE_LOCAL. */
struct sel_row {
	enum sel_side side;
	void (*get)(const struct result *res, int loc, char *b, size_t cap);
};

#define SEL_ROW(id, side, fn) [SEL_##id] = {SEL_SIDE_##side, fn}
#define SEL_PAIR(l, r, name, fn)                                               \
	SEL_ROW(l##name, LOCAL, fn), SEL_ROW(r##name, REMOTE, fn)
#define SEL_SIDES(name, fn) SEL_PAIR(LOCAL_, REMOTE_, name, fn)

/* The selectors got this way; the rest by the functions sel_getters lists
 * (a zero row has no getter). */
static const struct sel_row sel_rows[SEL_COUNT] = {
    SEL_SIDES(CPU_UTIL, get_cpu_util),
    SEL_SIDES(CPU_PERCENT_USER, get_cpu_user),
    SEL_SIDES(CPU_PERCENT_SYSTEM, get_cpu_system),
    SEL_SIDES(CPU_PERCENT_IOWAIT, get_cpu_iowait),
    SEL_SIDES(CPU_PERCENT_IRQ, get_cpu_irq),
    SEL_SIDES(CPU_PERCENT_SWINTR, get_cpu_swintr),
    SEL_SIDES(CPU_PERCENT_STEAL, get_cpu_steal),
    SEL_SIDES(CPU_METHOD, get_cpu_method),
    SEL_SIDES(SD, get_sd),
    SEL_ROW(SD_UNITS, NONE, get_sd_units),
    SEL_SIDES(CPU_CONFID, get_cpu_confid),
    SEL_SIDES(TRANSPORT_RETRANS, get_retrans),
    SEL_SIDES(SEND_THROUGHPUT, get_send_thruput),
    SEL_SIDES(RECV_THROUGHPUT, get_recv_thruput),
    SEL_SIDES(CPU_BIND, get_cpu_bind),
    SEL_SIDES(CPU_COUNT, get_cpu_count),
    SEL_SIDES(CPU_PEAK_UTIL, get_cpu_peak),
    SEL_SIDES(CPU_PEAK_ID, get_cpu_peak_id),
    SEL_PAIR(SOURCE_, DEST_, ADDR, get_addr),
    SEL_ROW(SOURCE_FAMILY, NONE, get_family),
    SEL_ROW(DEST_FAMILY, NONE, get_family),
    SEL_SIDES(BYTES_PER_RECV, get_bytes_per_recv),
    SEL_SIDES(BYTES_PER_SEND, get_bytes_per_send),
    SEL_SIDES(BYTES_XFERD, get_bytes_xferd),
    SEL_SIDES(NODELAY, get_nodelay),
    SEL_SIDES(SYSNAME, get_sysname),
    SEL_SIDES(RELEASE, get_release),
    SEL_SIDES(CPU_MODEL, get_cpu_model),
    SEL_SIDES(HOSTNAME, get_hostname),
    SEL_SIDES(SEND_WIDTH, get_send_width),
    SEL_SIDES(RECV_WIDTH, get_one),
    SEL_SIDES(SEND_OFFSET, get_send_offset),
    SEL_SIDES(RECV_OFFSET, get_recv_offset),
    SEL_SIDES(SEND_ALIGN, get_send_align),
    SEL_SIDES(RECV_ALIGN, get_recv_align),
    SEL_SIDES(SEND_DIRTY_COUNT, get_dirty),
    SEL_SIDES(RECV_DIRTY_COUNT, get_dirty),
    SEL_SIDES(RECV_CLEAN_COUNT, get_clean),
    SEL_SIDES(CORK, get_cork),
    SEL_SIDES(INTERVAL_USECS, get_interval_usecs),
    SEL_SIDES(INTERVAL_BURST, get_interval_burst),
    SEL_SIDES(SECURITY_TYPE_ID, get_zero),
    SEL_SIDES(SECURITY_ENABLED_NUM, get_zero),
    SEL_SIDES(SECURITY_TYPE, get_deprecated),
    SEL_SIDES(SECURITY_ENABLED, get_deprecated),
    SEL_SIDES(SECURITY_SPECIFIC, get_deprecated),
    SEL_SIDES(SOCKET_PRIO, get_prio),
    SEL_SIDES(SOCKET_TOS, get_tos),
    SEL_SIDES(FILL_FILE, get_fill_file),
    SEL_PAIR(BIDIR_L2R_, BIDIR_R2L_, THROUGHPUT, get_bidir_thruput),
    SEL_PAIR(BIDIR_L2R_, BIDIR_R2L_, LOST, get_bidir_lost),
    SEL_PAIR(BIDIR_L2R_, BIDIR_R2L_, LOSS_PERCENT, get_bidir_loss_pct),
    SEL_SIDES(CPU_FREQUENCY, get_cpu_mhz),
    SEL_SIDES(VERSION, get_version),
    SEL_SIDES(MACHINE, get_machine),
    SEL_SIDES(SYSTEM_MODEL, get_system_model),
    SEL_SIDES(INTERFACE_NAME, get_nic_name),
    SEL_SIDES(INTERFACE_VENDOR, get_nic_vendor),
    SEL_SIDES(INTERFACE_DEVICE, get_nic_device),
    SEL_SIDES(INTERFACE_SUBVENDOR, get_nic_subvendor),
    SEL_SIDES(INTERFACE_SUBDEVICE, get_nic_subdevice),
    SEL_SIDES(DRIVER_NAME, get_driver),
    SEL_SIDES(DRIVER_VERSION, get_driver_version),
    SEL_SIDES(DRIVER_FIRMWARE, get_firmware),
    SEL_SIDES(DRIVER_BUS, get_bus),
    SEL_SIDES(INTERFACE_SLOT, get_slot),
    SEL_SIDES(CPU_MAX_FREQUENCY, get_cpu_max_mhz),
    SEL_SIDES(CPU_GOVERNOR, get_governor),
    SEL_SIDES(SMT, get_smt),
    SEL_SIDES(VULNERABLE, get_vulnerable),
    SEL_SIDES(MITIGATION_OPTIONS, get_mitigations),
    SEL_SIDES(HYPERVISOR, get_hypervisor),
    SEL_SIDES(CONTAINER, get_container),
    SEL_SIDES(NUMA_NODES, get_numa_nodes),
    SEL_SIDES(SYSTEM_VENDOR, get_system_vendor),
    SEL_SIDES(INTERFACE_SPEED, get_speed),
    SEL_SIDES(INTERFACE_MTU, get_mtu),
    SEL_SIDES(INTERFACE_OFFLOADS, get_offloads),
    SEL_SIDES(INTERFACE_IRQ_CPUS, get_irq_cpus),
    SEL_SIDES(QDISC, get_qdisc),
    SEL_SIDES(BUILD, get_build),
#define SEL_ROW_TCP(X, id, key, merge, counter, title, unit)                   \
	SEL_SIDES(TCP_##id, get_tcp_##id),
    TCPINFO_FIELDS(SEL_ROW_TCP, _)
#undef SEL_ROW_TCP
};

#undef SEL_SIDES
#undef SEL_PAIR
#undef SEL_ROW

/* The ways to the value of a selector without a row in sel_rows, tried
 * in turn; each returns 1 when id is one of its selectors. */
static int (*const sel_getters[])(const struct result *res, int id, char *b,
				  size_t cap) = {
    side_value,	 sel_test,   sel_rates,	    sel_latency, sel_run,
    compat_misc, sel_oneway, sel_open,	    sel_underload, sel_tstamp,
    sel_mix,
};

/* Formats selector id of res into b, as netperf's format for it does;
 * "" for one that has no value. */
static void
sel_value(const struct result *res, int id, char *b, size_t cap)
{
	const struct sel_row *r = &sel_rows[id];
	size_t i;

	if (r->get != NULL) {
		r->get(res, r->side == SEL_SIDE_LOCAL, b, cap);
		return;
	}
	for (i = 0; i < sizeof(sel_getters) / sizeof(sel_getters[0]); i++)
		if (sel_getters[i](res, id, b, cap))
			return;
	b[0] = '\0';
}

/* Selector names are matched without regard to case, as netperf's are. */
static int
sel_find(const char *name, size_t len)
{
	int i;

	for (i = 0; i < SEL_COUNT; i++)
		if (strlen(sel_table[i].name) == len &&
		    strncasecmp(sel_table[i].name, name, len) == 0)
			return i;
	return -1;
}

/* Parses a list of names separated by ',', whitespace (as netperf's
 * strtok(" ,") does) and ';' (a new -O block). */
static int
parse_direct(const char *s, struct select_list *l, char *err)
{
	int newblock = 0, id;
	size_t len;

	memset(l, 0, sizeof(*l));
	while (*s != '\0') {
		if (*s == ';') {
			newblock = l->n > 0;
			s++;
			continue;
		}
		if (*s == ',' || isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		len = strcspn(s, ",; \t\r\n\v\f");
		/* As 2.7: OUTPUT_END ends the list, whatever follows. */
		if (len == 10 && strncasecmp(s, "OUTPUT_END", 10) == 0)
			break;
		id = sel_find(s, len);
		if (id < 0)
			return err_set(err,
				       "unknown output selector \"%.*s\" "
				       "(netperf -- -o '?' lists them)",
				       (int)(len > 64 ? 64 : len), s);
		if (l->n == SELECT_MAX_FIELDS)
			return err_set(err, "more than %d output selectors",
				       SELECT_MAX_FIELDS);
		l->field[l->n] = id;
		l->block[l->n] = (unsigned char)newblock;
		l->n++;
		newblock = 0;
		s += len;
	}
	if (l->n == 0)
		return err_set(err, "empty output selector list");
	return 0;
}

/* A single word that names no selector may be a file of selectors. */
static int
is_selector_file(const char *arg)
{
	struct stat st;

	if (strpbrk(arg, ",; \t") != NULL || sel_find(arg, strlen(arg)) >= 0)
		return 0;
	return stat(arg, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads up to four lines of a selector file, each one a -O block, and
 * joins them with ';'. */
static int
parse_file(const char *path, struct select_list *l, char *err)
{
	FILE *f;
	char *line = NULL, *all = NULL, *tmp;
	size_t cap = 0, used = 0, n;
	ssize_t got;
	int lines = 0, rc = -1;

	f = fopen(path, "r");
	if (f == NULL)
		return err_set(err, "cannot read output selector file %s",
			       path);
	all = calloc(1, 1);
	if (all == NULL) {
		err_set(err, "out of memory");
		goto close_file;
	}
	while (lines < 4 && (got = getline(&line, &cap, f)) >= 0) {
		n = (size_t)got;
		tmp = realloc(all, used + n + 2);
		if (tmp == NULL) {
			err_set(err, "out of memory");
			goto free_bufs;
		}
		all = tmp;
		memcpy(all + used, line, n);
		used += n;
		all[used++] = ';';
		all[used] = '\0';
		lines++;
	}
	if (ferror(f)) {
		err_set(err, "cannot read output selector file %s", path);
		goto free_bufs;
	}
	rc = parse_direct(all, l, err);
free_bufs:
	free(line);
	free(all);
close_file:
	fclose(f);
	return rc;
}

int
select_parse(const char *arg, struct select_list *l, char *err)
{
	char word[8];
	size_t len;
	int i;

	if (arg == NULL)
		return err_set(err, "empty output selector list");
	while (isspace((unsigned char)*arg))
		arg++;
	len = strlen(arg);
	while (len > 0 && isspace((unsigned char)arg[len - 1]))
		len--;
	if (len < sizeof(word)) {
		memcpy(word, arg, len);
		word[len] = '\0';
		if (strcasecmp(word, "all") == 0)
			return parse_direct(SEL_ALL_27, l, err);
		if (strcasecmp(word, "all+") == 0) {
			memset(l, 0, sizeof(*l));
			for (i = 0; i < SEL_COUNT; i++) {
				l->field[l->n] = i;
				l->block[l->n] =
				    (unsigned char)sel_starts_block(i);
				l->n++;
			}
			return 0;
		}
	}
	if (is_selector_file(arg))
		return parse_file(arg, l, err);
	return parse_direct(arg, l, err);
}

void
select_list_names(FILE *out)
{
	int i;

	for (i = 0; i < SEL_COUNT; i++)
		fprintf(out, "%s\n", sel_table[i].name);
	fputs("OUTPUT_END\n", out);
}

void
select_list_names_line(FILE *out)
{
	for (int i = 0; i < SEL_COUNT; i++)
		fprintf(out, "%s,", sel_table[i].name);
	fputs("OUTPUT_END\n", out);
}

/* netperf's set_output_list_by_test(): the sizes that matter for the
 * test, the throughput, and with -c or -C the CPU figures. */
#define DEF_TPUT "ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS"
#define DEF_STREAM "LSS_SIZE_END,RSR_SIZE_END,LOCAL_SEND_SIZE"
#define DEF_MAERTS "RSS_SIZE_END,LSR_SIZE_END,REMOTE_SEND_SIZE"
#define DEF_RR                                                                 \
	"LSS_SIZE_END,LSR_SIZE_END,RSR_SIZE_END,RSS_SIZE_END,REQUEST_SIZE,"    \
	"RESPONSE_SIZE"
#define DEF_CPU                                                                \
	"LOCAL_CPU_UTIL,LOCAL_CPU_PERCENT_USER,LOCAL_CPU_PERCENT_SYSTEM,"      \
	"LOCAL_CPU_PERCENT_IOWAIT,LOCAL_CPU_PERCENT_IRQ,"                      \
	"LOCAL_CPU_PERCENT_SWINTR,LOCAL_CPU_METHOD,REMOTE_CPU_UTIL,"           \
	"REMOTE_CPU_PERCENT_USER,REMOTE_CPU_PERCENT_SYSTEM,"                   \
	"REMOTE_CPU_PERCENT_IOWAIT,REMOTE_CPU_PERCENT_IRQ,"                    \
	"REMOTE_CPU_PERCENT_SWINTR,REMOTE_CPU_METHOD,LOCAL_SD,REMOTE_SD,"      \
	"SD_UNITS"

void
select_default_list(const struct result *res, struct select_list *l)
{
	char err[ERR_LEN];
	int cpu = res->side[RESULT_LOCAL].cpu_wanted ||
		  res->side[RESULT_REMOTE].cpu_wanted;
	const char *s;

	if (res->m->flow == MODULE_TO_SERVER)
		s = cpu ? DEF_STREAM "," DEF_TPUT "," DEF_CPU
			: DEF_STREAM "," DEF_TPUT;
	else if (res->m->flow == MODULE_TO_CLIENT)
		s = cpu ? DEF_MAERTS "," DEF_TPUT "," DEF_CPU
			: DEF_MAERTS "," DEF_TPUT;
	else
		s = cpu ? DEF_RR "," DEF_TPUT "," DEF_CPU : DEF_RR "," DEF_TPUT;
	if (parse_direct(s, l, err) != 0)
		memset(l, 0, sizeof(*l));
}

/* A CSV field: quoted (quotes doubled) when it holds a separator. */
static void
csv_field(FILE *out, const char *v)
{
	if (strpbrk(v, ",\"\r\n") == NULL) {
		fputs(v, out);
		return;
	}
	fputc('"', out);
	for (; *v != '\0'; v++) {
		if (*v == '"')
			fputc('"', out);
		fputc(*v, out);
	}
	fputc('"', out);
}

/* The title as one line: netperf's lines up to the first empty one,
 * joined by spaces. */
static void
title_join(int id, char *b, size_t cap)
{
	size_t n = 0;
	int k;

	b[0] = '\0';
	for (k = 0; k < 4 && sel_table[id].line[k][0] != '\0' && n < cap; k++)
		n += (size_t)snprintf(b + n, cap - n, "%s%s", k ? " " : "",
				      sel_table[id].line[k]);
}

void
select_csv(FILE *out, const struct result *res, const struct select_list *l,
	   int headers)
{
	char v[VAL_LEN];
	int i;

	if (l->n == 0)
		return;
	if (headers) {
		for (i = 0; i < l->n; i++) {
			title_join(l->field[i], v, sizeof(v));
			if (i)
				fputc(',', out);
			csv_field(out, v);
		}
		fputc('\n', out);
	}
	for (i = 0; i < l->n; i++) {
		sel_value(res, l->field[i], v, sizeof(v));
		if (i)
			fputc(',', out);
		if (l->field[i] == SEL_COMMAND_LINE)
			fputs(v, out); /* already quoted */
		else
			csv_field(out, v);
	}
	fputc('\n', out);
}

/* netperf's column width: the longest title line or the value plus one,
 * whichever is wider; a column then takes that plus one space. */
static size_t
column_width(const struct result *res, int id)
{
	char v[VAL_LEN];
	size_t w = 0, n;
	int k;

	for (k = 0; k < 4; k++) {
		n = strlen(sel_table[id].line[k]);
		if (n > w)
			w = n;
	}
	sel_value(res, id, v, sizeof(v));
	n = strlen(v) + 1;
	return n > w ? n : w;
}

static void
column_cell(FILE *out, const char *text, size_t width)
{
	fprintf(out, "%-*s", (int)(width + 1), text);
}

void
select_columns(FILE *out, const struct result *res, const struct select_list *l,
	       int headers)
{
	char v[VAL_LEN];
	int start, end, i, k, nblock = 0;

	for (start = 0; start < l->n; start = end) {
		for (end = start + 1; end < l->n && !l->block[end]; end++)
			;
		if (nblock++ > 0)
			fputc('\n', out);
		for (k = 0; headers && k < 4; k++) {
			for (i = start; i < end; i++)
				column_cell(out, sel_table[l->field[i]].line[k],
					    column_width(res, l->field[i]));
			fputc('\n', out);
		}
		for (i = start; i < end; i++) {
			sel_value(res, l->field[i], v, sizeof(v));
			column_cell(out, v, column_width(res, l->field[i]));
		}
		fputc('\n', out);
	}
}

void
select_keyval(FILE *out, const struct result *res, const struct select_list *l)
{
	char v[VAL_LEN];
	int i;

	for (i = 0; i < l->n; i++) {
		/* As 2.7: no RESULT_BRAND line without -B (its value is a
		 * null pointer there, which print_omni_keyword skips). */
		if (l->field[i] == SEL_RESULT_BRAND && res->brand[0] == '\0')
			continue;
		sel_value(res, l->field[i], v, sizeof(v));
		fprintf(out, "%s=%s\n", sel_table[l->field[i]].name, v);
	}
}

void
select_interim(FILE *out, const struct result *res,
	       const struct result_interim *iv, int n, char mode)
{
	const char *u = figure_unit_label(res);
	/* netperf prints gettimeofday() as seconds and milliseconds */
	long long ms = llround(iv->ending * 1000.0);
	long sec = (long)(ms / 1000), msec = (long)(ms % 1000);

	switch (mode) {
	case 'o':
		fprintf(out, "%7.2f,%s/s,%.3f,%ld.%.3ld\n", iv->value, u,
			iv->interval, sec, msec);
		break;
	case 'k':
		fprintf(out,
			"NETPERF_INTERIM_RESULT[%d]=%.2f\n"
			"NETPERF_UNITS[%d]=%s/s\n"
			"NETPERF_INTERVAL[%d]=%.3f\n"
			"NETPERF_ENDING[%d]=%ld.%.3ld\n",
			n, iv->value, n, u, n, iv->interval, n, sec, msec);
		break;
	default:
		fprintf(out,
			"Interim result: %7.2f %s/s over %.3f seconds ending "
			"at %ld.%.3ld\n",
			iv->value, u, iv->interval, sec, msec);
		break;
	}
	fflush(out);
}

/* A figure of t as "%.3f" of v / div, or "-" when unknown. */
static void
tcp_scaled(char *b, size_t cap, const struct tcpinfo *t, int f, double div)
{
	if (t->v[f] < 0)
		snprintf(b, cap, "-");
	else
		snprintf(b, cap, "%.3f", (double)t->v[f] / div);
}

/* One side's "Interim TCP" line, after its label; nothing when t has no
 * figures. */
static void
interim_tcp_line(FILE *out, const char *label, const struct tcpinfo *t)
{
	char rtt[24], var[24], min[24], dr[24], pr[24], busy[24], rw[24],
	    sb[24];

	if (t->n <= 0)
		return;
	tcp_scaled(rtt, sizeof(rtt), t, TCPINFO_RTT, 1e3);
	tcp_scaled(var, sizeof(var), t, TCPINFO_RTTVAR, 1e3);
	tcp_scaled(min, sizeof(min), t, TCPINFO_MIN_RTT, 1e3);
	tcp_scaled(dr, sizeof(dr), t, TCPINFO_DELIVERY_RATE, 1e6 / 8);
	tcp_scaled(pr, sizeof(pr), t, TCPINFO_PACING_RATE, 1e6 / 8);
	tcp_scaled(busy, sizeof(busy), t, TCPINFO_BUSY, 1e3);
	tcp_scaled(rw, sizeof(rw), t, TCPINFO_RWND_LIMITED, 1e3);
	tcp_scaled(sb, sizeof(sb), t, TCPINFO_SNDBUF_LIMITED, 1e3);
	fprintf(out,
		"%s: retrans %lld (%lld bytes) cwnd %lld srtt %s ms "
		"rttvar %s ms min_rtt %s ms delivery %s Mbit/s pacing %s "
		"Mbit/s reordering %lld busy %s ms rwnd_limited %s ms "
		"sndbuf_limited %s ms\n",
		label, (long long)t->v[TCPINFO_RETRANS],
		(long long)t->v[TCPINFO_BYTES_RETRANS],
		(long long)t->v[TCPINFO_CWND], rtt, var, min, dr, pr,
		(long long)t->v[TCPINFO_REORDERING], busy, rw, sb);
}

void
select_interim_tcp(FILE *out, const struct result_interim *iv)
{
	interim_tcp_line(out, "Interim TCP", &iv->tcpi);
	interim_tcp_line(out, "Interim remote TCP", &iv->rtcpi);
	fflush(out);
}
