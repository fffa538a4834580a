// The control file of a headless run: lines parse to commands, each line is taken once, bad lines are
// reported, and the writer lock tells whether a run is there to read them.
#include "loop/control_file.h"
#include "loop_test_support.h"
#include "util/durable_file.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace ak;
using namespace ak::testing;

TEST(ControlFile, EveryCommandParses) {
    std::string error;
    EXPECT_TRUE(std::holds_alternative<command::Pause>(*parse_control_line("pause", &error)));
    EXPECT_TRUE(std::holds_alternative<command::Resume>(*parse_control_line(" resume \r", &error)));
    EXPECT_TRUE(std::holds_alternative<command::Step>(*parse_control_line("step", &error)));
    EXPECT_TRUE(std::holds_alternative<command::Stop>(*parse_control_line("stop", &error)));
    EXPECT_TRUE(std::holds_alternative<command::ForceKeep>(*parse_control_line("force-keep", &error)));
    EXPECT_TRUE(std::holds_alternative<command::ForceRevert>(*parse_control_line("force-revert", &error)));
    const auto branch = parse_control_line("branch-from 12", &error);
    ASSERT_TRUE(branch && std::holds_alternative<command::BranchFrom>(*branch));
    EXPECT_EQ(std::get<command::BranchFrom>(*branch).experiment, 12);
    const auto threshold = parse_control_line("threshold 0.02", &error);
    ASSERT_TRUE(threshold && std::holds_alternative<command::Steer>(*threshold));
    EXPECT_DOUBLE_EQ(std::get<command::Steer>(*threshold).keep_threshold.value_or(-1), 0.02);
    EXPECT_TRUE(error.empty());
}

TEST(ControlFile, BadLinesSayWhatIsWrongAndBlankLinesAreSkipped) {
    std::string error;
    EXPECT_FALSE(parse_control_line("", &error));
    EXPECT_TRUE(error.empty());
    EXPECT_FALSE(parse_control_line("# comment", &error));
    EXPECT_TRUE(error.empty());
    EXPECT_FALSE(parse_control_line("jump", &error));
    EXPECT_NE(error.find("'jump': unknown command"), std::string::npos) << error;
    EXPECT_FALSE(parse_control_line("pause now", &error));
    EXPECT_NE(error.find("pause takes no argument"), std::string::npos) << error;
    EXPECT_FALSE(parse_control_line("branch-from x1", &error));
    EXPECT_NE(error.find("not an experiment number"), std::string::npos) << error;
    EXPECT_FALSE(parse_control_line("threshold 5", &error));
    EXPECT_NE(error.find("fraction"), std::string::npos) << error;
}

TEST(ControlFile, CommandsAreTakenOnceInOrder) {
    TempDir tmp;
    append_control_line(tmp.path(), "pause");
    append_control_line(tmp.path(), "step");
    append_control_line(tmp.path(), "branch-from 3");
    EXPECT_THROW(append_control_line(tmp.path(), "dance"), Error);
    std::vector<std::string> errors;
    const auto commands = take_control_commands(tmp.path(), &errors);
    ASSERT_EQ(commands.size(), 3u);
    EXPECT_TRUE(std::holds_alternative<command::Pause>(commands[0]));
    EXPECT_TRUE(std::holds_alternative<command::Step>(commands[1]));
    EXPECT_EQ(std::get<command::BranchFrom>(commands[2]).experiment, 3);
    EXPECT_TRUE(errors.empty());
    EXPECT_FALSE(std::filesystem::exists(control_file_path(tmp.path())));
    EXPECT_TRUE(take_control_commands(tmp.path(), &errors).empty());  // taken once
}

TEST(ControlFile, LinesWrittenByHandThatAreNotCommandsAreReported) {
    TempDir tmp;
    append_durably(control_file_path(tmp.path()), "stop\nexplode\n");
    std::vector<std::string> errors;
    const auto commands = take_control_commands(tmp.path(), &errors);
    ASSERT_EQ(commands.size(), 1u);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("'explode'"), std::string::npos) << errors[0];
}

TEST(ControlFile, TheWriterLockShowsWhetherARunIsThere) {
    TempDir tmp;
    { make_session(tmp / "s", {kernel("rmsnorm")}); }
    EXPECT_FALSE(session_has_writer(tmp / "s"));
    {
        Session writer = Session::open(tmp / "s");
        EXPECT_TRUE(session_has_writer(tmp / "s"));
    }
    EXPECT_FALSE(session_has_writer(tmp / "s"));
    EXPECT_FALSE(session_has_writer(tmp / "missing"));
}
