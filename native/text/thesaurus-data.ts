/**
 * Maintenance thesaurus: general vocabulary of equipment maintenance (CNC, 3D printers, motors and
 * drives, vehicles), written from trade knowledge, not from any evaluation question.
 *
 * Each entry is one concept. `en` and `zh` are interchangeable names for it (a query that contains one
 * is expanded with all the others, in both languages, so a Chinese question can reach an English manual).
 * `also` are one-way additions: matched terms pull them in, but they do not trigger the entry.
 *
 * Pure data; compiled and applied by ./thesaurus.ts.
 */
export interface ThesaurusEntry {
  en: string[];
  zh: string[];
  also?: string[];
}

export const THESAURUS: readonly ThesaurusEntry[] = [
  // Symptoms and states
  {
    en: ['fail', 'fails', 'failed', 'failure', "won't", "doesn't", 'does not work', 'not working', 'cannot', 'unable', 'malfunction'],
    zh: ['失败', '无法', '不能', '不工作', '失灵'],
    also: ['error'],
  },
  { en: ['error', 'fault', 'error code', 'fault code'], zh: ['错误', '故障', '错误代码', '故障码', '故障代码', '错误码'] },
  { en: ['alarm', 'alert'], zh: ['报警', '告警', '警报'] },
  { en: ['warning', 'caution'], zh: ['警告', '注意'] },
  {
    en: ['overheat', 'overheating', 'overheated', 'too hot', 'overtemperature', 'over temperature', 'thermal runaway', 'thermal'],
    zh: ['过温', '过热', '温度过高', '超温', '热失控'],
  },
  { en: ['stall', 'stalled', 'skip steps', 'skipping steps', 'lose steps', 'lost steps', 'missed steps', 'layer shift'], zh: ['失步', '丢步', '堵转'] },
  { en: ['vibration', 'noise', 'noisy', 'rattle', 'resonance', 'chatter'], zh: ['振动', '震动', '噪音', '噪声', '异响', '共振'] },
  { en: ['leak', 'leaking', 'leakage', 'drip'], zh: ['泄漏', '漏油', '漏水', '渗漏', '漏气'] },
  { en: ['clog', 'clogged', 'blocked', 'jam', 'jammed', 'obstruction'], zh: ['堵塞', '堵头', '卡料', '卡住'] },
  { en: ['misfire', 'misfiring'], zh: ['失火', '缺火'] },
  { en: ['lean', 'too lean', 'lean mixture'], zh: ['过稀', '混合气过稀'] },
  { en: ['rich', 'too rich', 'rich mixture'], zh: ['过浓', '混合气过浓'] },
  { en: ['undervoltage', 'under voltage', 'low voltage', 'voltage low', 'brownout'], zh: ['欠压', '电压低', '低电压', '电压过低'] },
  { en: ['overvoltage', 'over voltage', 'high voltage', 'voltage high'], zh: ['过压', '电压过高', '高电压'] },
  { en: ['overcurrent', 'over current', 'short circuit', 'shorted'], zh: ['过流', '过电流', '短路'] },
  { en: ['overload', 'overloaded'], zh: ['过载', '超载'] },
  {
    en: ['communication', 'communication lost', 'timeout', 'time out', 'timed out', 'disconnect', 'disconnected', 'connection lost', 'no response'],
    zh: ['通信', '通讯', '超时', '断开', '连接断开', '掉线', '无响应'],
  },
  // Actions
  { en: ['home', 'homing', 'homed', 'reference', 'referencing', 'return to zero', 'zero return', 'origin'], zh: ['回零', '归零', '回原点', '原点', '找零'] },
  { en: ['reset', 'restore defaults', 'factory reset', 'factory settings', 'default settings'], zh: ['复位', '重置', '恢复出厂', '出厂设置', '恢复默认'] },
  { en: ['unlock', 'clear alarm', 'kill alarm', 'alarm reset', 'acknowledge'], zh: ['解锁', '解除报警', '清除报警', '消除报警'] },
  { en: ['jog', 'jogging', 'manual move', 'move manually'], zh: ['点动', '手动移动', '手动'] },
  { en: ['calibrate', 'calibration', 'calibrating'], zh: ['校准', '标定', '校正'] },
  { en: ['level', 'leveling', 'levelling', 'bed leveling', 'mesh'], zh: ['调平', '找平'] },
  { en: ['adjust', 'adjustment', 'tune', 'tuning'], zh: ['调整', '调节', '调试'] },
  { en: ['install', 'installation', 'mount', 'mounting', 'assemble', 'assembly'], zh: ['安装', '装配', '组装'] },
  { en: ['replace', 'replacement', 'swap', 'change'], zh: ['更换', '替换'] },
  { en: ['maintenance', 'service', 'servicing'], zh: ['维护', '保养'] },
  { en: ['clean', 'cleaning'], zh: ['清洁', '清理', '清洗'] },
  { en: ['check', 'inspect', 'inspection', 'verify', 'test'], zh: ['检查', '检测', '测试'] },
  { en: ['troubleshoot', 'troubleshooting', 'fix', 'solve', 'solution', 'remedy', 'repair'], zh: ['排除', '解决', '处理', '维修', '故障排除', '解决方法', '排查'] },
  { en: ['cause', 'reason', 'why'], zh: ['原因', '为什么'] },
  { en: ['start', 'startup', 'boot', 'power on'], zh: ['启动', '开机', '上电'] },
  { en: ['shutdown', 'shut down', 'power off', 'stop'], zh: ['停机', '关机', '停止', '断电'] },
  { en: ['restart', 'reboot'], zh: ['重启', '重新启动'] },
  { en: ['emergency stop', 'e-stop', 'estop'], zh: ['急停', '紧急停止'] },
  { en: ['update', 'upgrade', 'flash'], zh: ['升级', '更新', '刷写', '刷机'] },
  { en: ['lubricate', 'lubrication', 'lubricant', 'grease', 'oil'], zh: ['润滑', '润滑油', '润滑脂', '加油'] },
  // Parts and subsystems
  { en: ['limit switch', 'endstop', 'end stop', 'hard limit', 'limit'], zh: ['限位', '限位开关', '行程开关', '极限开关'] },
  { en: ['soft limit', 'soft limits', 'travel limit'], zh: ['软限位', '软件限位'] },
  { en: ['spindle'], zh: ['主轴'] },
  { en: ['motor', 'stepper', 'stepper motor', 'servo'], zh: ['电机', '马达', '步进电机', '步进', '伺服', '电动机'] },
  { en: ['driver', 'drive', 'stepper driver', 'amplifier'], zh: ['驱动器', '驱动'] },
  { en: ['encoder'], zh: ['编码器'] },
  { en: ['sensor', 'probe', 'detector'], zh: ['传感器', '探头', '探针'] },
  { en: ['thermistor', 'temperature sensor', 'thermocouple'], zh: ['热敏电阻', '温度传感器', '热电偶'] },
  { en: ['temperature', 'temp'], zh: ['温度'] },
  { en: ['heater', 'heating', 'heater cartridge'], zh: ['加热', '加热器', '加热棒', '加热管'] },
  { en: ['fan', 'cooling fan'], zh: ['风扇', '散热风扇'] },
  { en: ['cooling', 'coolant'], zh: ['冷却', '冷却液', '散热'] },
  { en: ['wiring', 'wire', 'cable', 'connector', 'harness', 'loose connection', 'plug'], zh: ['接线', '线缆', '电缆', '连接器', '插头', '线束', '接头', '导线'] },
  { en: ['power supply', 'psu'], zh: ['电源', '供电'] },
  { en: ['fuse'], zh: ['保险丝', '熔断器', '熔丝'] },
  { en: ['battery'], zh: ['电池', '蓄电池'] },
  { en: ['voltage'], zh: ['电压'] },
  { en: ['current'], zh: ['电流'] },
  { en: ['pressure'], zh: ['压力'] },
  { en: ['firmware'], zh: ['固件'] },
  { en: ['settings', 'setting', 'parameter', 'parameters', 'configuration', 'config', 'option'], zh: ['设置', '参数', '配置', '选项'] },
  { en: ['config file', 'configuration file', 'printer.cfg'], zh: ['配置文件'] },
  { en: ['macro'], zh: ['宏'] },
  { en: ['gcode', 'g-code', 'command'], zh: ['G代码', '指令', '命令'] },
  { en: ['serial', 'serial port', 'usb', 'port'], zh: ['串口', '端口'] },
  { en: ['display', 'screen', 'lcd', 'touchscreen'], zh: ['显示屏', '屏幕', '显示器', '触摸屏'] },
  { en: ['button', 'key', 'knob', 'push button'], zh: ['按钮', '按键', '旋钮'] },
  { en: ['indicator', 'led', 'light', 'lamp'], zh: ['指示灯', '灯'] },
  { en: ['speed', 'feed rate', 'feedrate', 'velocity'], zh: ['速度', '进给', '进给速度', '转速'] },
  { en: ['acceleration', 'accel'], zh: ['加速度'] },
  { en: ['belt', 'belt tension'], zh: ['皮带', '同步带', '张紧'] },
  { en: ['bearing'], zh: ['轴承'] },
  { en: ['axis', 'axes'], zh: ['坐标轴'] },
  { en: ['tool change', 'tool changer', 'tool'], zh: ['换刀', '刀具'] },
  { en: ['safety door', 'door', 'interlock'], zh: ['安全门', '门', '联锁'] },
  { en: ['coordinate', 'coordinates', 'offset', 'work offset'], zh: ['坐标', '偏置', '工件坐标'] },
  // 3D printing
  { en: ['printer', '3d printer'], zh: ['打印机', '3D打印机'] },
  { en: ['print', 'printing'], zh: ['打印'] },
  { en: ['nozzle', 'hotend', 'hot end', 'print head', 'toolhead'], zh: ['喷嘴', '喷头', '挤出头', '打印头', '热端'] },
  { en: ['extruder', 'extrusion', 'extrude'], zh: ['挤出机', '挤出'] },
  { en: ['filament'], zh: ['耗材', '打印丝', '线材'] },
  { en: ['bed', 'heated bed', 'heatbed', 'build plate', 'print bed'], zh: ['热床', '打印平台', '平台', '热板'] },
  { en: ['first layer'], zh: ['首层', '第一层'] },
  // Vehicles
  { en: ['engine'], zh: ['发动机', '引擎'] },
  { en: ['oxygen sensor', 'o2 sensor', 'lambda'], zh: ['氧传感器'] },
  { en: ['fuel', 'fuel system'], zh: ['燃油', '燃料', '燃油系统'] },
  { en: ['ignition', 'spark', 'spark plug'], zh: ['点火', '火花塞'] },
  { en: ['cylinder'], zh: ['气缸', '汽缸'] },
  { en: ['catalyst', 'catalytic converter'], zh: ['催化器', '三元催化'] },
  { en: ['throttle'], zh: ['节气门', '油门'] },
  { en: ['transmission', 'gearbox'], zh: ['变速箱', '变速器'] },
  { en: ['circuit'], zh: ['电路', '回路'] },
  // Plain-language sizes and ordinals as manuals write them
  { en: ['big', 'large', 'major', 'gross'], zh: ['大'] },
  { en: ['small', 'minor', 'tiny', 'slight'], zh: ['小', '微小'] },
  { en: ['first', '1st'], zh: ['第一'], also: ['1'] },
  { en: ['second', '2nd'], zh: ['第二'], also: ['2'] },
  { en: ['third', '3rd'], zh: ['第三'], also: ['3'] },
  { en: ['reversed', 'inverted', 'invert', 'backwards', 'opposite', 'polarity'], zh: ['反向', '反转', '相反'] },
  { en: ['pressed', 'triggered', 'activated', 'actuated', 'tripped'], zh: ['触发', '按下'] },
];

/**
 * Tight equivalents: abbreviations and spelled-out forms that mean exactly the same thing in
 * maintenance writing (a technician's "comm" is the manual's "communication"). A query term pulls in
 * the rest of its group with nearly the weight of its own words.
 */
export const EQUIVALENTS: readonly ThesaurusEntry[] = [
  { en: ['comm', 'comms', 'communication'], zh: [] },
  { en: ['temp', 'temperature'], zh: [] },
  { en: ['config', 'cfg', 'configuration'], zh: [] },
  { en: ['accel', 'acceleration'], zh: [] },
  { en: ['decel', 'deceleration'], zh: [] },
  { en: ['evap', 'evaporative'], zh: [] },
  { en: ['cyl', 'cylinder'], zh: [] },
  { en: ['pos', 'position'], zh: [] },
  { en: ['psu', 'power supply'], zh: [] },
  { en: ['mcu', 'micro-controller', 'microcontroller'], zh: [] },
  { en: ['estop', 'e-stop', 'emergency stop'], zh: [] },
  { en: ['dtc', 'trouble code', 'diagnostic trouble code'], zh: [] },
  { en: ['mil', 'check engine light'], zh: [] },
  { en: ['rpm', 'revolutions per minute'], zh: [] },
  { en: ['too much current', 'excessive current', 'overcurrent', 'over current', 'over-current'], zh: [] },
  { en: ['too much voltage', 'excessive voltage', 'overvoltage', 'over voltage', 'over-voltage'], zh: [] },
  { en: ['factory', 'default', 'defaults', 'factory default'], zh: [] },
  { en: ['back off', 'backs off', 'pull off', 'pull-off', 'pulloff'], zh: [] },
  { en: ['rapid', 'rapids', 'max rate', 'seek rate', 'maximum rate'], zh: [] },
];
