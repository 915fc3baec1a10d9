# bench/stats.jq: the statistics bench/'s scripts share, included with
# jq -L bench 'include "stats"; ...'.

# The median of an array of numbers; null for none.
def median:
  sort | if length == 0 then null
         elif length % 2 == 1 then .[(length - 1) / 2]
         else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# A 95 % confidence interval of an array's median, assuming no
# distribution: of n sorted values, those at n/2 -+ 0.98 sqrt(n) (the
# binomial's normal approximation, fair from n = 8 on), as [lo, hi];
# [null, null] for none.
def ci:
  sort | length as $n |
  if $n == 0 then [null, null]
  else ((($n / 2 - 0.98 * ($n | sqrt)) | floor) as $lo |
        (($n / 2 + 0.98 * ($n | sqrt)) | ceil) as $hi |
        [.[if $lo < 0 then 0 else $lo end],
         .[if $hi > $n - 1 then $n - 1 else $hi end]])
  end;
