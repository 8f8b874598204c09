# serve.tcl - helpers of the heapinspect.serve tests (sourced by each):
# a monitored program with a known heap, `heapinspect serve` on a free
# loopback port, HTTP requests with curl, and the end of both whatever
# happened (serve_cleanup, run by each test at its end and by
# serve_start for the ones left behind).

global hi_cli hi_lib hi_progs serve_pids serve_fds serve_servers
set serve_pids {}
set serve_fds {}
set serve_servers {}

# Start serve-heap (a known heap: serve_keep 40 x 1000 bytes, serve_small
# 10 x 24) in DIR, monitored, with ARGS; its channel (lines "N" make it
# allocate N x 100 bytes in serve_more) and pid as a list, or {} with a
# fail naming TEST.  PROG: another copy of the program, ENV: more
# environment, WRAP: a command it runs under (setpriv ...).
proc serve_program { test dir {args {}} {prog {}} {wrap {}} } {
    global hi_lib hi_progs serve_fds serve_pids
    if { $prog eq "" } {
        set prog $hi_progs/serve-heap
    }
    set fd [hi_spawn $dir [list LD_PRELOAD=$hi_lib HEAPINSPECT_OUTPUT=none] \
                [concat $wrap [list $prog] $args] 1 report]
    if { ![regexp {^ready (\d+)\n$} $report -> pid] } {
        fail "$test: the program starts ($report)"
        catch { close $fd }
        return {}
    }
    lappend serve_fds $fd
    lappend serve_pids $pid
    return [list $fd $pid]
}

# Make the program of FD allocate N blocks of 100 bytes; 1 once it has.
proc serve_grow { fd n } {
    puts $fd $n
    flush $fd
    return [expr {[gets $fd line] >= 0 && $line eq "done $n"}]
}

# End the program of FD (its input closed) and wait for it.
proc serve_program_end { fd } {
    global serve_fds
    set i [lsearch -exact $serve_fds $fd]
    if { $i >= 0 } {
        set serve_fds [lreplace $serve_fds $i $i]
    }
    catch { close $fd }
}

# Start `heapinspect serve ARGS` (WRAP: a command it runs under) in DIR,
# listening on 127.0.0.1 at a free port unless ARGS say --listen; its
# standard error into DIR/serve.err.  A dict: pid, port, url; or {} with
# a fail naming TEST.
proc serve_start { test dir args } {
    return [serve_start_as $test $dir {} {*}$args]
}

proc serve_start_as { test dir wrap args } {
    global hi_cli serve_pids serve_servers
    if { [lsearch -glob $args --listen*] < 0 } {
        set args [concat [list --listen 127.0.0.1:0] $args]
    }
    set err $dir/serve.err
    file delete $err
    set fd [open "|[list {*}$wrap $hi_cli serve {*}$args 2> $err]" r]
    set pid [pid $fd]
    lappend serve_pids $pid
    lappend serve_servers $fd
    for {set i 0} {$i < 200} {incr i} {
        if { [file exists $err] } {
            set f [open $err]
            set text [read $f]
            close $f
            if { [regexp {listening on http://([0-9.]+|\[[0-9a-f:]+\]):(\d+)/} $text -> host port] } {
                return [dict create pid $pid port $port fd $fd \
                            url "http://$host:$port" err $err]
            }
        }
        after 50
    }
    fail "$test: the server starts ([serve_stderr $dir])"
    catch { exec kill -9 $pid }
    catch { close $fd }
    return {}
}

# The server's standard error so far.
proc serve_stderr { dir } {
    if { [catch { set f [open $dir/serve.err] }] } {
        return ""
    }
    set text [read $f]
    close $f
    return $text
}

# GET URL (with curl ARGS) into FILE: the status code, or 0 for no answer
# within 30 s.
proc serve_get { url file args } {
    if { [catch { exec curl -s -m 30 -o $file -w "%{http_code}" \
                      {*}$args $url } code] } {
        verbose -log "curl $url: $code"
        if { ![regexp {^\d{3}$} $code] } {
            return 0
        }
    }
    return $code
}

# The contents of FILE (binary), or "".
proc serve_read { file } {
    if { [catch { set f [open $file rb] }] } {
        return ""
    }
    set data [read $f]
    close $f
    return $data
}

# 1 if the server of S still answers / with 200 within 10 s.
proc serve_alive { s dir } {
    return [expr {[serve_get [dict get $s url]/ $dir/alive.html -m 10] == 200}]
}

# End every server and program still running (SIGTERM, then SIGKILL).
proc serve_cleanup { } {
    global serve_pids serve_fds serve_servers
    foreach pid $serve_pids {
        catch { exec kill $pid }
    }
    foreach fd $serve_fds {
        catch { close $fd }
    }
    after 200
    foreach pid $serve_pids {
        catch { exec kill -9 $pid }
    }
    foreach fd $serve_servers {
        catch { close $fd }
    }
    set serve_pids {}
    set serve_fds {}
    set serve_servers {}
}

# SIGTERM to the server of S; its exit status once it has ended (-1: a
# signal, -2: still running after 10 s, then killed).
proc serve_stop { s } {
    global serve_servers
    set pid [dict get $s pid]
    set fd [dict get $s fd]
    catch { exec kill -TERM $pid }
    for {set i 0} {$i < 100} {incr i} {
        if { [catch { exec kill -0 $pid }]
             || [regexp {^Z} [exec ps -o stat= -p $pid]] } {
            break
        }
        after 100
    }
    set status 0
    if { $i == 100 } {
        catch { exec kill -9 $pid }
        set status -2
    }
    set j [lsearch -exact $serve_servers $fd]
    if { $j >= 0 } {
        set serve_servers [lreplace $serve_servers $j $j]
    }
    if { [catch { close $fd } out opts] && $status == 0 } {
        set code [dict get $opts -errorcode]
        if { [lindex $code 0] eq "CHILDSTATUS" } {
            set status [lindex $code 2]
        } elseif { [lindex $code 0] eq "CHILDKILLED" } {
            set status -1
        }
    }
    return $status
}
